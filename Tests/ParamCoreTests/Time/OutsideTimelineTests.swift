import Testing
@testable import ParamCore

/// The renderer following a timeline kept outside paramd (Link, the JACK transport), by frame:
/// DC 1.0 into the inputs, so out_1 is volume. 48 kHz, periods of 256 frames.
@Suite struct OutsideTimelineTests {
    /// Renders `periods` periods, each told the outside timeline's reading at its first frame
    /// by `reading` (nil: none that period). Returns out_1.
    func render(_ h: inout RendererHarness, periods: Int, reading: (UInt64) -> TimelineReading?) -> [Double] {
        var out: [Double] = []
        for _ in 0..<periods {
            let outside = reading(h.renderer.framePosition)
            h.renderer.render(frames: h.period, in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2,
                              outsideTimeline: outside)
            out += UnsafeBufferPointer(start: h.out1, count: h.period).map(Double.init)
        }
        return out
    }

    func musical(_ target: Double, beats: Double) -> AnimationSpec {
        var s = spec(target, seconds: beats / 2)
        s.beats = beats
        return s
    }

    @Test func aReadingThatAgreesLeavesTheTimelineAlone() {
        var h = RendererHarness()
        defer { h.release() }
        // 120 BPM from beat 0 on frame 0: what paramd's own timeline says too.
        _ = render(&h, periods: 50) { TimelineReading(tempo: 120, beat: Double($0) / 24_000, beatsPerBar: 4) }
        #expect(h.renderer.timeline.anchorFrame == 0)
    }

    @Test func quantizeWaitsForTheOutsideBarLine() {
        var h = RendererHarness()
        defer { h.release() }
        // The outside bar line is 1.5 beats before frame 0: the next falls on beat 4, 2.5 beats
        // (60,000 frames) in, not on paramd's own frame 96,000.
        let reading: (UInt64) -> TimelineReading = { TimelineReading(tempo: 120, beat: 1.5 + Double($0) / 24_000, beatsPerBar: 4) }
        _ = render(&h, periods: 1, reading: reading)
        #expect(h.renderer.timeline.beat(at: 0) == 1.5)
        let pushed = h.renderer.commands.push(TimedCommand(.animate(.volume, musical(0, beats: 1)), placement: BeatPlacement(gridBeats: 4)))
        #expect(pushed)
        let out = render(&h, periods: 400, reading: reading)
        let start = 60_000 - 256
        #expect(out[..<(start + 1)].allSatisfy { $0 == 1 }, "rests until the outside bar line")
        #expect(out[start + 1] < 1)
        #expect(out[start + 24_000] == 0)
    }

    @Test func anOutsideTempoChangeStretchesAMusicalFadeToItsBeat() {
        var h = RendererHarness()
        defer { h.release() }
        let pushed = h.renderer.commands.push(TimedCommand(.animate(.volume, musical(0, beats: 8)), placement: .none))
        #expect(pushed)
        var out = render(&h, periods: 375) { TimelineReading(tempo: 120, beat: Double($0) / 24_000, beatsPerBar: 4) }
        // From frame 96,000 (beat 4) the outside timeline runs at 60 BPM: 4 beats of 48,000.
        out += render(&h, periods: 1000) { TimelineReading(tempo: 60, beat: 4 + Double($0 - 96_000) / 48_000, beatsPerBar: 4) }
        #expect(abs(out[96_000] - 0.5) < 1e-5)
        #expect(out[287_999] > 0)
        #expect(out[288_000...].allSatisfy { $0 == 0 }, "ends on beat 8 of the outside timeline")
    }

    @Test func withoutAReadingParamdsOwnTimelineRunsOnFromWhereItWas() {
        var h = RendererHarness()
        defer { h.release() }
        _ = render(&h, periods: 10) { TimelineReading(tempo: 90, beat: 7 + Double($0) / 32_000, beatsPerBar: 3) }
        _ = render(&h, periods: 10) { _ in nil }
        let frame = h.renderer.framePosition
        #expect(h.renderer.timeline.tempo(at: frame) == 90)
        #expect(h.renderer.timeline.beatsPerBar == 3)
        #expect(abs(h.renderer.timeline.beat(at: frame) - (7 + Double(frame) / 32_000)) < 1e-9)
    }
}
