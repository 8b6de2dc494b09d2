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

    /// How far (µs, signed) each paramd's own Link timeline is from the peer's: its `/status
    /// beat` at `beat_frame`, heard an output latency after that frame's JACK time, against the
    /// peer's beat then. nil where the frame was not recorded.
    static func timelineOffsets(_ timelines: [FrameTimeline], anchors: [(beat: Double, frame: Int64)?],
                                link: LinkBeatTimeline, latencies: [Int]) -> [Double?] {
        anchors.enumerated().map { i, anchor in
            guard let anchor, let jack = timelines[i].micros(of: anchor.frame) else { return nil }
            let heard = jack + Double(latencies[i]) * 1e6 / Double(rate)
            let beats = anchor.beat - link.beat(atMicros: heard)
            return (beats / link.quantum - (beats / link.quantum).rounded()) * link.barMicros
        }
    }

    /// Judges one attempt's recordings; false (nothing judged) when a start or a `/status`
    /// anchor cannot be placed on its server's clock. A start's time is its period's cycle time
    /// plus its offset in the period (`FrameTimeline.micros(of:)`, JACK's clock:
    /// CLOCK_MONOTONIC_RAW here, as Link's), heard out_1's output latency later.
    static func judge(_ timelines: [FrameTimeline], anchors: [(beat: Double, frame: Int64)?], link: LinkBeatTimeline,
                      bridgeOffset: (micros: Double, bracket: Double), expected: [Double], latencies: [Int], attempt: Int) -> Bool {
        let found = timelines.map(Self.starts)
        let offsets = timelineOffsets(timelines, anchors: anchors, link: link, latencies: latencies)
        guard let a = found[0], let b = found[1], let offsetA = offsets[0], let offsetB = offsets[1] else {
            TestLog.write("Link bar line, attempt \(attempt): a start or a /status beat_frame not found or in a gap [\(timelines.map(\.description))]")
            return false
        }
        let frames = [a, b], ownOffset = [offsetA, offsetB]
        TestLog.write(String(format: "Link bar line: paramd a's own Link timeline (/status beat at beat_frame) is %+.1f µs from the aalink peer's, b's %+.1f µs; paramd-linkprobe's (no JACK) %+.1f µs (read in a %.0f µs bracket)",
                             offsetA, offsetB, bridgeOffset.micros, bridgeOffset.bracket))
        for (label, offset) in [("a", offsetA), ("b", offsetB)] {
            #expect(abs(offset - bridgeOffset.micros) <= bridgeLimitMicros,
                    "paramd \(label)'s Link timeline \(offset - bridgeOffset.micros) µs from the bridge peer's (bracket \(bridgeOffset.bracket) µs)")
        }
        var next = [0, 0]
        var heard: [Double] = []
        for (i, cue) in cues.enumerated() {
            let frame = frames[cue.rig][next[cue.rig]]
            next[cue.rig] += 1
            guard let jack = timelines[cue.rig].micros(of: frame) else {
                TestLog.write("Link bar line, attempt \(attempt): the start at frame \(frame) is in a period set aside")
                return false
            }
            let t = jack + Double(latencies[cue.rig]) * 1e6 / Double(rate)
            heard.append(t)
            let fromPeer = t - expected[i]
            TestLog.write(String(format: "Link bar line: host %@ fade to %.1f from JACK frame %lld, JACK time %.1f µs, heard at %.1f µs: %+.1f µs from the peer's bar line, %+.1f µs from its own Link timeline's",
                                 cue.rig == 0 ? "a" : "b", cue.value, frame, jack, t, fromPeer, fromPeer + ownOffset[cue.rig]))
            #expect(fromPeer + ownOffset[cue.rig] >= -frameMicros && fromPeer + ownOffset[cue.rig] <= 2 * frameMicros,
                    "start \(i + 1) not on the first frame at or after its own Link timeline's bar line: \(fromPeer + ownOffset[cue.rig]) µs")
            #expect(abs(fromPeer) <= peerToleranceMicros, "start \(i + 1) \(fromPeer) µs from the peer's bar line")
        }
        let sameBar = heard[1] - heard[0]
        let acrossBars = heard[3] - heard[2]
        TestLog.write(String(format: "Link bar line, attempt %d: sent in one bar, b − a = %+.1f µs (%+.2f frames); sent either side of a bar line, b − a = %.1f µs = 1 bar %+.1f µs (a bar is %.1f µs)",
                             attempt, sameBar, sameBar / frameMicros, acrossBars, acrossBars - link.barMicros, link.barMicros))
        #expect(abs(sameBar) <= limitMicros, "sent in one bar, the two start \(sameBar) µs apart")
        #expect(abs(acrossBars - link.barMicros) <= limitMicros,
                "sent either side of a bar line, \(acrossBars) µs apart, not one bar (\(link.barMicros) µs)")
        return true
    }

    static var frameMicros: Double { 1e6 / Double(rate) }
}
