/// A stretch played again (a take, SPEC §17): what sounded from `played` set beside what sounded
/// from `recorded`, frame for frame.
extension FrameTimeline {
    /// The worst relative difference (absolute below 1) between the `count` frames from
    /// `recorded` and those from `played`, over the frames both recorded, and how many that was.
    func replayDifference(recorded: Int64, played: Int64, count: Int, channel: Int = 0) -> (worst: Double, compared: Int) {
        var worst = 0.0, compared = 0
        for (frame, value) in samples(channel, in: recorded..<(recorded + Int64(count))) {
            guard let again = self.value(channel, at: played + (frame - recorded)) else { continue }
            let d = abs(Double(again) - Double(value)) / max(1, abs(Double(value)))
            worst = d <= worst ? worst : d  // a NaN is the worst
            compared += 1
        }
        return (worst, compared)
    }
}
