@testable import ParamCore
import Testing

/// PipeWire's JACK (0.3.65, Debian 12; pipewire-jack's `jack_get_cycle_times` gives the
/// driver's `clock.position` and `clock.nsec`) changing the quantum while an animation runs:
/// every frame of every period sounds where JACK's counter puts it (SPEC §5).
@Suite struct PipeWireQuantumTests {
    /// One cycle of the graph as a JACK client sees it: the counter, the cycle's start on the
    /// clock (in frames), the length it is told, and whether the client runs it.
    struct Cycle {
        var position: UInt32
        var timeFrames: Int
        var frames: Int
        var processed: Bool
    }

    /// The dummy driver adds the length in force at a cycle's start to the counter and times the
    /// next wake-up by it; a new quantum is applied after that (node-driver.c `on_timeout`,
    /// impl-node.c `node_ready`). So the first cycle told a new length lasts the old one on the
    /// clock, its counter span is the new one, and pipewire-jack skips it (the buffer size
    /// changes): the readings step by the old length plus the new. `quanta`: (length, cycles).
    static func cycles(from start: UInt32, _ quanta: [(Int, Int)]) -> [Cycle] {
        let told = quanta.flatMap { Array(repeating: $0.0, count: $0.1) }
        var all: [Cycle] = []
        var position = start, time = 0
        for n in told.indices {
            all.append(Cycle(position: position, timeFrames: time, frames: told[n], processed: n == 0 || told[n] == told[n - 1]))
            position &+= UInt32(told[n])
            time += told[max(n - 1, 0)]
        }
        return all
    }

    /// Renders the cycles the client runs; each period's samples of out_1 by JACK frame (the
    /// counter unwrapped from the first), and whether the cycle before it was skipped.
    static func render(_ h: inout RendererHarness, _ cycles: [Cycle], base: OSCTimeTag = 0xE000_0000_0000_0000,
                       beforeCycle: (Int, inout RendererHarness) -> Void = { _, _ in }) -> [(frame: Int64, samples: [Float], afterSkip: Bool)] {
        var periods: [(frame: Int64, samples: [Float], afterSkip: Bool)] = []
        for (n, cycle) in cycles.enumerated() where cycle.processed {
            beforeCycle(n, &h)
            let start = base &+ UInt64((Double(cycle.timeFrames) / 48000 * 4_294_967_296).rounded())
            h.renderer.render(frames: cycle.frames, clock: CycleClock(cycleStart: start), jackFrame: cycle.position,
                              in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2)
            periods.append((Int64(cycle.position &- cycles[0].position), Array(UnsafeBufferPointer(start: h.out1, count: cycle.frames)),
                            n > 0 && !cycles[n - 1].processed))
        }
        return periods
    }

    @Test func aQuantumChangeSkipsTheCycleItCountsOnJacksFramesWhateverTheLengths() {
        var h = RendererHarness(period: 1024)
        defer { h.release() }
        h.renderer.counterStepsByEarlierCycle = true
        let n = 24000
        h.send(.volume, spec(0, seconds: Double(n) / 48000))
        // As recorded: a 256-frame period at 1010304, the next one run (1024 frames) at 1011584.
        let quanta = [(256, 6), (1024, 4), (128, 12), (64, 20), (128, 10), (1024, 5), (256, 8), (1024, 8)]
        let cycles = Self.cycles(from: 1010304 - 5 * 256, quanta)
        #expect(cycles[5].position == 1010304 && cycles[7].position == 1011584 && !cycles[6].processed)
        var compared = 0
        for period in Self.render(&h, cycles) where !period.afterSkip {  // that one follows on, as after any gap
            for (i, sample) in period.samples.enumerated() {
                let k = period.frame + Int64(i)
                #expect(abs(Double(sample) - max(0, 1 - Double(k) / Double(n))) < 1e-6, "JACK frame \(k): \(sample)")
                compared += 1
            }
        }
        #expect(compared > 15000)
        // Each skipped cycle's counter span: the new quantum, whatever the old one was.
        let changeSpans: [UInt64] = [1024, 128, 64, 128, 1024, 256, 1024]
        #expect(h.renderer.counters.load(.skippedFrames) == changeSpans.reduce(0, +))
        #expect(h.renderer.counters.load(.rewoundFrames) == 0)
    }

    @Test func twoTagsAThousandFramesApartAcrossAQuantumChangeStartAThousandJackFramesApart() {
        var h = RendererHarness(period: 1024)
        defer { h.release() }
        h.renderer.counterStepsByEarlierCycle = true
        let base: OSCTimeTag = 0xE000_0000_0000_0000
        // The change's cycle (told 256) starts at 128·8 on the clock; t1 before it, t2 after.
        let cycles = Self.cycles(from: 500_000, [(128, 8), (256, 12)])
        let at1 = 128 * 7 + 50.3
        let t1 = base &+ UInt64((at1 / 48000 * 4_294_967_296).rounded())
        let t2 = t1 &+ UInt64((1000.0 / 48000 * 4_294_967_296).rounded())
        let periods = Self.render(&h, cycles, base: base) { n, h in
            guard n == 2 else { return }
            h.send(.volume, spec(0.5, seconds: 0), start: .at(t1))
            h.send(.volume, spec(0.25, seconds: 0), start: .at(t2))
        }
        func firstFrame(of value: Float) -> Int64? {
            for p in periods where !p.afterSkip {
                if let i = p.samples.firstIndex(of: value) { return p.frame + Int64(i) }
            }
            return nil
        }
        #expect(firstFrame(of: 0.5) == Int64(7 * 128 + 50))
        #expect(firstFrame(of: 0.25) == Int64(7 * 128 + 50 + 1000))
        #expect(h.renderer.counters.load(.late) == 0)
    }

    @Test func aTagAfterAQuantumChangeLandsOnItsCyclesJackFrame() {
        var h = RendererHarness(period: 1024)
        defer { h.release() }
        h.renderer.counterStepsByEarlierCycle = true
        let base: OSCTimeTag = 0xE000_0000_0000_0000
        // 256 → 1024: from the change on, the counter is 768 frames ahead of the clock.
        let cycles = Self.cycles(from: 70_000, [(256, 6), (1024, 6)])
        let target = cycles[9]  // the second cycle after the one the skip is confirmed in
        let t = base &+ UInt64(((Double(target.timeFrames) + 300) / 48000 * 4_294_967_296).rounded())
        let periods = Self.render(&h, cycles, base: base) { n, h in
            if n == 8 { h.send(.volume, spec(0.5, seconds: 0), start: .at(t)) }
        }
        let landed = periods.first { $0.samples.contains(0.5) }.map { $0.frame + Int64($0.samples.firstIndex(of: 0.5)!) }
        #expect(landed == Int64(target.position &- cycles[0].position) + 300, "the cycle's frame plus 300, not 16 cycles' old anchor's")
    }
}
