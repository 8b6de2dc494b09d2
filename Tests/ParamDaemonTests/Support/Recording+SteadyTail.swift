/// A steady value at the end of a recording, with JACK's xruns counted as gaps.
extension Recording {
    /// Whether the last `frames` samples of `channel` hold `value`, period by period. A whole
    /// period of silence counts as a gap, not a wrong value, only when the recorder was told of
    /// an xrun: a client late for its cycle (the feeder, or paramd) leaves its outputs silent.
    /// Any other value fails, and at least three quarters of the periods must hold `value`.
    public func tail(of channel: Int, frames: Int, holds value: Float) -> (holds: Bool, detail: String) {
        let samples = channels[channel].suffix(frames)
        let period = max(metadata.bufferSize ?? 256, 1)
        guard samples.count == frames, frames % period == 0 else {
            return (false, "\(samples.count) samples, not \(frames) whole periods of \(period)")
        }
        let xruns = metadata.xruns ?? 0
        var holding = 0, silentGaps = 0, wrong = 0
        var wrongPeriods: [Int] = []
        for start in stride(from: samples.startIndex, to: samples.endIndex, by: period) {
            let block = samples[start..<(start + period)]
            if block.allSatisfy({ $0 == value }) { holding += 1 }
            else if xruns > 0 && block.allSatisfy({ $0 == 0 }) { silentGaps += 1 }
            else { wrong += 1; wrongPeriods.append((start - samples.startIndex) / period) }
        }
        let periods = frames / period
        let detail = "\(holding) of \(periods) periods hold \(value), \(silentGaps) silent with \(xruns) xruns, "
            + "\(wrong) wrong \(wrongPeriods); values \(Set(samples).sorted().prefix(8))"
        return (wrong == 0 && holding * 4 >= periods * 3, detail)
    }
}
