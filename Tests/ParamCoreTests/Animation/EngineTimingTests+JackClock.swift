import Testing
@testable import ParamCore

/// JACK's frame counter read each period: cycles JACK ran without us, late callbacks, steps
/// back and buffer size changes, and where an animation lands across them.
extension EngineTimingTests {
    /// Renders one period of `frames` per JACK counter reading (nil: a cycle without one); out_1 of all of them.
    func renderReadings(_ h: inout RendererHarness, _ readings: [(jackFrame: UInt32?, frames: Int)]) -> [Float] {
        var out: [Float] = []
        for (jackFrame, frames) in readings {
            precondition(frames <= h.period)
            h.renderer.render(frames: frames, jackFrame: jackFrame, in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2)
            out += UnsafeBufferPointer(start: h.out1, count: frames)
        }
        return out
    }

    /// A linear fade from 1 to 0 over 1000 frames: the value at frame k of it.
    func fade(_ k: Int) -> Float { Float(max(0, 1 - Double(k) / 1000)) }

    /// A linear fade of volume from 1 to 0 over `fadeFrames`, rendered over `readings`: out_1, and
    /// the frames the clock skipped and took back on the way.
    func fadeOver(_ readings: [(jackFrame: UInt32?, frames: Int)], period: Int = 64,
                  fadeFrames: Double = 1000) -> (out: [Float], skipped: UInt64, rewound: UInt64) {
        var h = RendererHarness(period: period)
        defer { h.release() }
        h.send(.volume, spec(0, seconds: fadeFrames / 48000))
        let out = renderReadings(&h, readings)
        return (out, h.renderer.counters.load(.skippedFrames), h.renderer.counters.load(.rewoundFrames))
    }

    @Test func cyclesJackRanWithoutUsMoveTheClockOnOnceTheNextCycleConfirmsIt() {
        // The cycle at 5200 never came. The reading at 5300 could still be a late callback's
        // (it would read 5300 again next); 5400 follows on from it, so 100 frames were missed.
        let (out, skipped, _) = fadeOver([(5000, 100), (5100, 100), (5300, 100), (5400, 100), (5500, 100)], period: 100)
        #expect(abs(out[200] - fade(200)) < 1e-6, "the unconfirmed cycle follows on from the last")
        #expect(abs(out[300] - fade(400)) < 1e-6, "frame 400 of the fade, not 300")
        #expect(abs(out[400] - fade(500)) < 1e-6)
        #expect(skipped == 100)
    }

    @Test func aLateCallbackThatReadsTheNextCyclesFrameTimeMovesNothing() {
        // JACK2, seen with jackd -d dummy under load: the callback of the cycle at 128 runs after
        // the cycle at 192 has begun and reads 192; the next callback reads 192 again.
        let (out, skipped, _) = fadeOver([(0, 64), (64, 64), (192, 64), (192, 64), (256, 64), (320, 64)])
        for k in 0..<out.count {
            #expect(abs(out[k] - fade(k)) < 1e-6, "frame \(k): \(out[k]), not a period ahead")
        }
        #expect(skipped == 0)
    }

    @Test func aBufferSizeChangeIsNotAGapInJackTime() {
        // JACK2 adds each cycle's own length to its counter at the cycle's start, so the step
        // into the first cycle of a new size is the new size (measured: 256 then 1024 → +1024).
        for (small, large) in [(64, 1024), (256, 1024), (64, 256)] {
            var readings: [(jackFrame: UInt32?, frames: Int)] = []
            var frame: UInt32 = 10_000
            for size in [small, small, large, large, small, small, large] {
                frame &+= UInt32(size)
                readings.append((frame, size))
            }
            let (out, skipped, _) = fadeOver(readings, period: large, fadeFrames: 4000)
            for k in 0..<out.count {
                #expect(abs(out[k] - Float(max(0, 1 - Double(k) / 4000))) < 1e-6, "\(small) ↔ \(large), frame \(k)")
            }
            #expect(skipped == 0, "\(small) ↔ \(large)")
        }
    }

    @Test func jack1sStepByTheEarlierCycleAtABufferSizeChangeFollowsOnToo() {
        let (out, skipped, _) = fadeOver([(0, 256), (256, 256), (512, 1024), (1536, 1024), (2560, 64), (2624, 64)],
                                         period: 1024, fadeFrames: 4000)
        for k in 0..<out.count {
            #expect(abs(out[k] - Float(max(0, 1 - Double(k) / 4000))) < 1e-6, "frame \(k)")
        }
        #expect(skipped == 0)
    }

    @Test func severalCyclesMissedAtOnceAreSkippedTogether() {
        let (out, skipped, _) = fadeOver([(0, 64), (64, 64), (128 + 320, 64), (192 + 320, 64), (256 + 320, 64)])
        #expect(abs(out[128] - fade(128)) < 1e-6)
        #expect(abs(out[192] - fade(192 + 320)) < 1e-6)
        #expect(abs(out[256] - fade(256 + 320)) < 1e-6)
        #expect(skipped == 320)
    }

    @Test func aMissedCycleAndALateReadTogetherAreSkippedOnTheReadThatStepsBack() {
        // Seen under load: the cycle at 128 never came to this client, and the callback of the
        // one at 192 ran late and read 256; the next read 256 again. That reading is the cycle it
        // runs in, so the one cycle really missed is skipped there, not a cycle later.
        let (out, skipped, _) = fadeOver([(0, 64), (64, 64), (256, 64), (256, 64), (320, 64)])
        #expect(abs(out[128] - fade(128)) < 1e-6, "the unconfirmed cycle follows on from the last")
        #expect(abs(out[192] - fade(256)) < 1e-6, "the read that steps back is JACK's frame 256")
        #expect(abs(out[256] - fade(320)) < 1e-6)
        #expect(skipped == 64)
    }

    @Test func aRunOfLateCallbacksThatEndsInAStepBackIsTakenBack() {
        // Seen under a realtime load (BufferSizeTests' recording; see FrameTimeline): the callbacks of the cycles at 128 and
        // 192 each ran a cycle late and read 192 and 256, the next read 256 again; no cycle was
        // missed. 256 followed on from 192, so 64 frames were skipped there; the step back shows
        // they were not missed, and the clock goes back: from the cycle at 256 on, JACK's frames.
        let (out, skipped, rewound) = fadeOver([(0, 64), (64, 64), (192, 64), (256, 64), (256, 64), (320, 64)])
        #expect(abs(out[128] - fade(128)) < 1e-6, "the unconfirmed cycle follows on from the last")
        #expect(abs(out[192] - fade(256)) < 1e-6, "taken for a gap that followed on: a period ahead")
        for k in 256..<out.count {
            #expect(abs(out[k] - fade(k)) < 1e-6, "frame \(k): \(out[k]), not a period ahead for good")
        }
        #expect(skipped == 64)
        #expect(rewound == 64)
    }

    @Test func aStepBackNeverTakesBackMoreThanWasSkipped() {
        // A reading repeated with nothing skipped or waiting (not seen from JACK; a counter that
        // went back would look so): nothing to take back, the clock runs on.
        let (out, _, rewound) = fadeOver([(0, 64), (64, 64), (64, 64), (128, 64), (192, 64)])
        for k in 0..<out.count {
            #expect(abs(out[k] - fade(k)) < 1e-6, "frame \(k)")
        }
        #expect(rewound == 0)
    }

    @Test func anAnimationStartedInFramesTakenBackSoundsItsStartUntilThen() {
        var h = RendererHarness(period: 64)
        defer { h.release() }
        h.send(.volume, spec(0.5, seconds: 0))
        var out = renderReadings(&h, [(0, 64), (64, 64), (192, 64)])
        // Starts 32 frames into the cycle that is then taken back: the clock's frame 288.
        h.send(.volume, spec(0, seconds: 1000.0 / 48000), delay: 32.0 / 48000)
        out += renderReadings(&h, [(256, 64), (256, 64), (320, 64)])
        #expect(out[192..<224].allSatisfy { $0 == 0.5 } && abs(out[224] - 0.5) < 1e-6, "\(out[192..<256])")
        // Rendered again from the clock's frame 256: the 32 frames before its start hold 0.5
        // (every curve takes progress below 0 as its start).
        #expect(out[256..<288].allSatisfy { $0 == 0.5 }, "before its start: \(Array(out[256..<288]))")
        for k in 288..<out.count {
            #expect(abs(Double(out[k]) - 0.5 * (1 - Double(k - 288) / 1000)) < 1e-6, "frame \(k): \(out[k])")
        }
    }

    @Test func aCycleWithoutAReadingStartsTheComparisonAfresh() {
        let (out, skipped, _) = fadeOver([(0, 64), (64, 64), (nil, 64), (192, 64), (256, 64)])
        for k in 0..<out.count {
            #expect(abs(out[k] - fade(k)) < 1e-6, "frame \(k)")
        }
        #expect(skipped == 0)
    }
}
