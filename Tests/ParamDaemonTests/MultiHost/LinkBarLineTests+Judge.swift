import Foundation
import Testing

extension LinkBarLineTests {
    /// Where a rig's out_1 starts its two fades (1 → 0.5, then 0.5 → 1): the last frame on the
    /// old value, the fade's frame 0. nil when a start fell in a recording gap.
    static func starts(_ timeline: FrameTimeline) -> [Int64]? {
        guard let first = timeline.firstChange(leaving: 1),
              let second = timeline.firstChange(leaving: 0.5, from: first.first) else { return nil }
        return [first.last, second.last]
    }

    /// Judges one attempt's recordings; false (nothing judged) when a start cannot be placed
    /// on its server's clock. Each start's time is its period's cycle time plus its offset in
    /// the period (`FrameTimeline.micros(of:)`, JACK's clock: CLOCK_MONOTONIC_RAW here, as
    /// Link's), and it is heard out_1's output latency later: that is the time Link's grid
    /// speaks of.
    static func judge(_ timelines: [FrameTimeline], link: LinkBeatTimeline, expected: [Double],
                      latencies: [Int], attempt: Int) -> Bool {
        let found = timelines.map(Self.starts)
        guard let a = found[0], let b = found[1] else {
            TestLog.write("Link bar line, attempt \(attempt): a start not found or in a gap [\(timelines.map(\.description))]")
            return false
        }
        let frames = [a, b]
        var next = [0, 0]
        var heard: [Double] = []
        for cue in cues {
            let frame = frames[cue.rig][next[cue.rig]]
            next[cue.rig] += 1
            guard let jack = timelines[cue.rig].micros(of: frame) else {
                TestLog.write("Link bar line, attempt \(attempt): the start at frame \(frame) is in a period set aside")
                return false
            }
            let latency = Double(latencies[cue.rig]) * 1e6 / Double(rate)
            heard.append(jack + latency)
            TestLog.write(String(format: "Link bar line: host %@ fade to %.1f from JACK frame %lld, JACK time %.1f µs, heard at %.1f µs: %+.1f µs from the bar line expected (%+.1f from the nearest)",
                                 cue.rig == 0 ? "a" : "b", cue.value, frame, jack, jack + latency,
                                 jack + latency - expected[heard.count - 1], link.offBar(jack + latency)))
        }
        let frameMicros = 1e6 / Double(rate)
        let sameBar = heard[1] - heard[0]
        let acrossBars = heard[3] - heard[2]
        TestLog.write(String(format: "Link bar line, attempt %d: sent in one bar, b − a = %+.1f µs (%+.2f frames); sent either side of a bar line, b − a = %.1f µs = 1 bar %+.1f µs (a bar is %.1f µs)",
                             attempt, sameBar, sameBar / frameMicros, acrossBars, acrossBars - link.barMicros, link.barMicros))
        #expect(abs(sameBar) <= limitMicros, "sent in one bar, the two start \(sameBar) µs apart")
        #expect(abs(acrossBars - link.barMicros) <= limitMicros,
                "sent either side of a bar line, \(acrossBars) µs apart, not one bar (\(link.barMicros) µs)")
        for (i, t) in heard.enumerated() {
            #expect(abs(t - expected[i]) <= limitMicros,
                    "start \(i + 1) heard \(t - expected[i]) µs from the peer's bar line (\(link.offBar(t)) µs from the nearest)")
        }
        return true
    }
}
