@testable import ParamCore
import Testing

/// The cycle a new quantum first runs in, and tags held across a change, on PipeWire's
/// readings as `PipeWireQuantumTests.cycles` simulates them (the end-to-end tests measure the
/// same on a private PipeWire: PipeWireTests).
extension PipeWireQuantumTests {
    @Test func theFirstCycleOfANewQuantumSoundsOnJacksFrames() {
        var h = Self.pipeWireHarness()
        defer { h.release() }
        let n = 24000
        h.send(.volume, spec(0, seconds: Double(n) / 48000))
        let cycles = Self.cycles(from: 1010304 - 5 * 256, [(256, 6), (1024, 4), (128, 12), (64, 20), (1024, 5)])
        var compared = 0, firstAfterChange = 0
        for period in Self.render(&h, cycles) {  // every period, the one after each change included
            compared += Self.expectOnFade(period, over: n)
            if period.afterSkip { firstAfterChange += 1 }
        }
        #expect(firstAfterChange == 4)
        #expect(compared > 9000)
        #expect(h.renderer.counters.load(.rewoundFrames) == 0)
    }

    /// Tags 1000 frames apart for 0.4 s, so the anchor they hold is older than
    /// `FrameClock.holdSeconds` when the quantum changes under them: the counter's step against
    /// the clock (768 frames at 256 → 1024) does not give it up, and each tag starts 1000 JACK
    /// frames after the one before. A tag after the hold lands on the new clock's frame.
    @Test func tagsHeldLongerThanTheHoldKeepTheirDistancesAcrossQuantumChanges() {
        var h = Self.pipeWireHarness()
        defer { h.release() }
        let cycles = Self.cycles(from: 200_000, [(256, 30), (1024, 12), (128, 60), (256, 60)])
        let count = 20, first = 256.0 * 10 + 37
        let values = (1...count).map { Float($0) / 64 }
        // After the steps and their hold (0.1 s past the last), on the clock after both changes.
        let later = cycles[95]
        let single = Self.tag(atClockFrame: Double(later.timeFrames) + 300)
        let periods = Self.render(&h, cycles) { n, h in
            if n == 2 {
                for k in 0..<count {
                    h.send(.volume, spec(Double(values[k]), seconds: 0), start: .at(Self.tag(atClockFrame: first + Double(k) * 1000)))
                }
            }
            if n == 90 { h.send(.volume, spec(0.875, seconds: 0), start: .at(single)) }
        }
        let frames = values.map { Self.firstFrame(of: $0, in: periods) }
        // A step whose frame lies in the span JACK skipped starts late, on the next cycle.
        let late = Int(h.renderer.counters.load(.late))
        let onGrid = frames.indices.filter { frames[$0] == Int64(first) + Int64($0) * 1000 }
        #expect(onGrid.count == count - late, "steps \(frames.map { $0 ?? -1 }), \(late) late")
        #expect(late == 1, "the step in the 1024 frames of the first change")
        #expect(Self.firstFrame(of: 0.875, in: periods) == Int64(later.position &- cycles[0].position) + 300, "the new clock's frame")
    }
}
