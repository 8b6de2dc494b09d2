@testable import ParamCore
import Testing

/// The cycle a new quantum first runs in, and tags held across a change, on PipeWire's
/// readings as `PipeWireQuantumTests.cycles` simulates them (the end-to-end tests measure the
/// same on a private PipeWire: PipeWireTests).
extension PipeWireQuantumTests {
    @Test func theFirstCycleOfANewQuantumSoundsOnJacksFrames() {
        var h = RendererHarness(period: 1024)
        defer { h.release() }
        h.renderer.counterStepsByEarlierCycle = true
        let n = 24000
        h.send(.volume, spec(0, seconds: Double(n) / 48000))
        let cycles = Self.cycles(from: 1010304 - 5 * 256, [(256, 6), (1024, 4), (128, 12), (64, 20), (1024, 5)])
        var compared = 0, firstAfterChange = 0
        for period in Self.render(&h, cycles) {  // every period, the one after each change included
            for (i, sample) in period.samples.enumerated() {
                let k = period.frame + Int64(i)
                #expect(abs(Double(sample) - max(0, 1 - Double(k) / Double(n))) < 1e-6, "JACK frame \(k): \(sample)")
                compared += 1
            }
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
        var h = RendererHarness(period: 1024)
        defer { h.release() }
        h.renderer.counterStepsByEarlierCycle = true
        let base: OSCTimeTag = 0xE000_0000_0000_0000
        let cycles = Self.cycles(from: 200_000, [(256, 30), (1024, 12), (128, 60), (256, 60)])
        func tag(atClockFrame frame: Double) -> OSCTimeTag { base &+ UInt64((frame / 48000 * 4_294_967_296).rounded()) }
        let count = 20, first = 256.0 * 10 + 37
        let values = (1...count).map { Float($0) / 64 }
        // After the steps and their hold (0.1 s past the last), on the clock after both changes.
        let later = cycles[95]
        let single = tag(atClockFrame: Double(later.timeFrames) + 300)
        let periods = Self.render(&h, cycles, base: base) { n, h in
            if n == 2 {
                for k in 0..<count {
                    h.send(.volume, spec(Double(values[k]), seconds: 0), start: .at(tag(atClockFrame: first + Double(k) * 1000)))
                }
            }
            if n == 90 { h.send(.volume, spec(0.875, seconds: 0), start: .at(single)) }
        }
        func firstFrame(of value: Float) -> Int64? {
            for p in periods {
                if let i = p.samples.firstIndex(of: value) { return p.frame + Int64(i) }
            }
            return nil
        }
        let frames = values.map(firstFrame)
        // A step whose frame lies in the span JACK skipped starts late, on the next cycle.
        let late = Int(h.renderer.counters.load(.late))
        let onGrid = frames.indices.filter { frames[$0] == Int64(first) + Int64($0) * 1000 }
        #expect(onGrid.count == count - late, "steps \(frames.map { $0 ?? -1 }), \(late) late")
        #expect(late == 1, "the step in the 1024 frames of the first change")
        #expect(firstFrame(of: 0.875) == Int64(later.position &- cycles[0].position) + 300, "the new clock's frame")
    }
}
