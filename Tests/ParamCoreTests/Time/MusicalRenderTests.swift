import Testing
@testable import ParamCore

/// Musical time on the audio thread (SPEC §14), by frame through the renderer (DC 1.0 into
/// the inputs, so out_1 is volume): durations in beats, re-timing on a tempo change, `delay`
/// in beats and `quantize` on the timeline's grid. 120 BPM at 48 kHz: a beat is 24,000 frames.
@Suite struct MusicalRenderTests {
    static let beat = 24_000

    func musical(_ target: Double, beats: Double) -> AnimationSpec {
        var s = spec(target, seconds: beats / 2)
        s.beats = beats
        return s
    }

    func send(_ h: inout RendererHarness, _ command: Command, placement: BeatPlacement = .none,
              sourceLocation: SourceLocation = #_sourceLocation) {
        let pushed = h.renderer.commands.push(TimedCommand(command, placement: placement))
        #expect(pushed, sourceLocation: sourceLocation)
    }

    @Test func aFadeOfOneBarLastsExactly96000Frames() {
        var h = RendererHarness()
        defer { h.release() }
        send(&h, .animate(.volume, musical(0.2, beats: 4)))
        let out = h.render(periods: 400).left
        for k in stride(from: 0, to: 96_000, by: 997) {
            #expect(abs(Double(out[k]) - (1 - 0.8 * Double(k) / 96_000)) < 1e-6, "frame \(k)")
        }
        #expect(out[95_999] > Float(0.2))
        #expect(out[96_000...].allSatisfy { $0 == Float(0.2) }, "on its target from frame 96,000 on")
    }

    @Test func aTempoChangeHalfwayStretchesTheRestToTheBarItAimedAt() {
        var h = RendererHarness()
        defer { h.release() }
        send(&h, .animate(.volume, musical(0, beats: 8)))  // 2m
        var out = h.render(periods: 375).left  // frames 0 ..< 96,000: beat 4, halfway
        h.renderer.tempo.post(bpm: 60, glideSeconds: 0)
        out += h.render(periods: 1000).left
        #expect(abs(Double(out[96_000]) - 0.5) < 1e-5, "the change keeps its progress")
        // 4 beats are left, at 60 BPM 48,000 frames each: the end is on beat 8, frame 288,000.
        #expect(h.renderer.timeline.framePosition(ofBeat: 8) == 288_000)
        #expect(out[287_999] > 0)
        #expect(out[288_000...].allSatisfy { $0 == 0 })
        for k in stride(from: 96_000, to: 288_000, by: 1009) {
            #expect(abs(Double(out[k]) - (0.5 - 0.5 * Double(k - 96_000) / 192_000)) < 2e-6, "frame \(k)")
        }
        #expect(h.renderer.tempo.tempoNow == 60)
        #expect(abs(h.renderer.tempo.beatNow - h.renderer.timeline.beat(at: h.renderer.framePosition)) < 1e-12)
    }

    @Test func aGlidingTempoEndsItOnTheFrameTheTimelineReachesItsBeat() {
        var h = RendererHarness()
        defer { h.release() }
        send(&h, .animate(.volume, musical(0, beats: 8)))
        _ = h.render(periods: 100)  // 25,600 frames
        h.renderer.tempo.post(bpm: 180, glideSeconds: 1)
        let out = h.render(periods: 600).left
        let end = Int(h.renderer.timeline.framePosition(ofBeat: 8).rounded()) - 25_600
        #expect(out[end - 1] > 0)
        #expect(out[end...].allSatisfy { $0 == 0 }, "ends where the timeline reaches beat 8")
    }

    @Test func secondsAreUntouchedByATempoChange() {
        var h = RendererHarness()
        defer { h.release() }
        h.send(.volume, spec(0, seconds: 4))
        _ = h.render(periods: 100)
        h.renderer.tempo.post(bpm: 60, glideSeconds: 0)
        let out = h.render(periods: 700).left
        #expect(out[192_000 - 25_600 - 1] > 0)
        #expect(out[(192_000 - 25_600)...].allSatisfy { $0 == 0 })
    }

    @Test func quantizeStartsOnTheNextGridLine() {
        var h = RendererHarness()
        defer { h.release() }
        _ = h.render(periods: 4)  // 1,024 frames in: the next beat is frame 24,000
        send(&h, .animate(.volume, musical(0, beats: 1)), placement: BeatPlacement(gridBeats: 1))
        let out = h.render(periods: 200).left.map(Double.init)
        let start = Self.beat - 1_024
        #expect(out[..<(start + 1)].allSatisfy { $0 == 1 }, "rests until the beat")
        #expect(out[start + 1] < 1)
        #expect(abs(out[start + Self.beat / 2] - 0.5) < 1e-6)
        #expect(out[start + Self.beat] == 0)
        #expect(h.renderer.timeline.beat(at: UInt64(Self.beat)) == 1)
    }

    @Test func quantizeOnALineStartsThereAndABarWaitsForTheBar() {
        var h = RendererHarness()
        defer { h.release() }
        send(&h, .animate(.volume, musical(0, beats: 1)), placement: BeatPlacement(gridBeats: 4))
        var out = h.render(periods: 94).left  // frame 0 is on the bar line: it starts at once
        #expect(out[1] < 1)
        _ = out
        // From frame 24,064, 1m waits for frame 96,000.
        send(&h, .animate(.volume, musical(1, beats: 1)), placement: BeatPlacement(gridBeats: 4))
        out = h.render(periods: 400).left
        let start = 96_000 - 94 * 256
        #expect(out[start] == 0)
        #expect(out[start + 1] > 0)
        #expect(out[start + Self.beat] == 1)
    }

    @Test func aDelayInBeatsCountsOnTheTimelineThenTheGridApplies() {
        var h = RendererHarness()
        defer { h.release() }
        _ = h.render(periods: 4)
        send(&h, .animate(.volume, musical(0, beats: 1)), placement: BeatPlacement(delayBeats: 0.5))
        var out = h.render(periods: 100).left
        #expect(out[12_000] == 1)
        #expect(out[12_001] < 1, "starts half a beat after frame 1,024")
        send(&h, .animate(.volume, musical(1, beats: 1)), placement: BeatPlacement(delayBeats: 0.5, gridBeats: 4))
        out = h.render(periods: 400).left
        let start = 96_000 - 104 * 256
        #expect(out[start] == 0)
        #expect(out[start + 1] > 0)
    }

    @Test func keyframesInMusicalTimeFollowTheTempo() {
        var h = RendererHarness()
        defer { h.release() }
        var k = KeyframeSpec()
        k.count = 3
        k.values[0] = 1; k.values[1] = 0; k.values[2] = 0.5
        k.times[0] = 0; k.times[1] = 0.5; k.times[2] = 1
        k.seconds = 4
        k.beats = 8
        send(&h, .keyframes(.volume, k))
        _ = h.render(periods: 375)  // halfway: beat 4 of 8, on the middle key
        h.renderer.tempo.post(bpm: 240, glideSeconds: 0)
        let out = h.render(periods: 200).left
        // 4 beats left at 240 BPM: 48,000 frames, through the last segment from 0 to 0.5.
        #expect(abs(Double(out[0])) < 1e-4)
        #expect(abs(Double(out[24_000]) - 0.25) < 1e-4)
        #expect(out[47_999] < Float(0.5))
        #expect(out[48_000...].allSatisfy { $0 == Float(0.5) })
    }

    @Test func anEndlessRepeatKeepsEachPassOnTheBeat() {
        var h = RendererHarness()
        defer { h.release() }
        var s = musical(0, beats: 1)
        s.repeatCount = .infinity
        send(&h, .animate(.volume, s))
        _ = h.render(periods: 150)  // 38,400 frames: 0.6 into the second pass
        h.renderer.tempo.post(bpm: 60, glideSeconds: 0)
        let out = h.render(periods: 400).left
        // The second pass ends on beat 2: frame 38,400 + 0.4 × 48,000 = 57,600; the third
        // lasts 48,000 frames.
        let base = 38_400
        #expect(out[57_600 - base] == 1, "a new pass starts on beat 2")
        #expect(abs(Double(out[57_600 + 24_000 - base]) - 0.5) < 1e-6)
        #expect(out[57_600 + 48_000 - base] == 1, "and the next on beat 3")
    }
}

extension MusicalRenderTests {
    @Test func aQuantizedStartWaitingForItsBarMovesWithATempoChange() {
        var h = RendererHarness()
        defer { h.release() }
        _ = h.render(periods: 4)  // frame 1,024: the next bar line is beat 4, frame 96,000
        send(&h, .animate(.volume, musical(0, beats: 1)), placement: BeatPlacement(gridBeats: 4))
        _ = h.render(periods: 183)  // to frame 47,872: beat 1.99…
        h.renderer.tempo.post(bpm: 60, glideSeconds: 0)
        let out = h.render(periods: 600).left.map(Double.init)
        // Beat 4 now falls on frame 47,872 + (4 − 47,872/24,000) × 48,000 = 144,128.
        let bar = Int(h.renderer.timeline.framePosition(ofBeat: 4)) - 47_872
        #expect(bar == 144_128 - 47_872)
        #expect(out[..<(bar + 1)].allSatisfy { $0 == 1 }, "waits for the bar line at the new tempo")
        #expect(out[bar + 1] < 1)
        #expect(abs(out[bar + 24_000] - 0.5) < 1e-6, "one beat at 60 BPM: 48,000 frames")
    }
}
