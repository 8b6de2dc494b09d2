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

    /// A period's samples of out_1 by JACK frame (the counter unwrapped from the first cycle's),
    /// and whether the cycle before it was skipped.
    typealias Period = (frame: Int64, samples: [Float], afterSkip: Bool)

    /// A harness for up to 1024 frames a cycle on a counter that steps by the earlier cycle's
    /// length, as PipeWire's does.
    static func pipeWireHarness() -> RendererHarness {
        var h = RendererHarness(period: 1024)
        h.renderer.counterStepsByEarlierCycle = true
        return h
    }

    /// `frames` frames at 48 kHz as an NTP duration (2^32 a second).
    static func ntp(frames: Double) -> UInt64 { UInt64((frames / 48000 * 4_294_967_296).rounded()) }

    /// The NTP time of a frame on the clock the cycles' starts are measured on.
    static func tag(atClockFrame frame: Double) -> OSCTimeTag { 0xE000_0000_0000_0000 &+ ntp(frames: frame) }

    /// The JACK frame on which `value` first sounds in `periods`.
    static func firstFrame(of value: Float, in periods: [Period]) -> Int64? {
        for p in periods {
            if let i = p.samples.firstIndex(of: value) { return p.frame + Int64(i) }
        }
        return nil
    }

    /// Expects every sample of `period` on a linear fade from 1 to 0 over `n` JACK frames; how many it compared.
    static func expectOnFade(_ period: Period, over n: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        for (i, sample) in period.samples.enumerated() {
            let k = period.frame + Int64(i)
            #expect(abs(Double(sample) - max(0, 1 - Double(k) / Double(n))) < 1e-6, "JACK frame \(k): \(sample)",
                    sourceLocation: sourceLocation)
        }
        return period.samples.count
    }

    /// Renders the cycles the client runs, period by period.
    static func render(_ h: inout RendererHarness, _ cycles: [Cycle],
                       beforeCycle: (Int, inout RendererHarness) -> Void = { _, _ in }) -> [Period] {
        var periods: [Period] = []
        for (n, cycle) in cycles.enumerated() where cycle.processed {
            beforeCycle(n, &h)
            let start = tag(atClockFrame: Double(cycle.timeFrames))
            h.renderer.render(frames: cycle.frames, clock: CycleClock(cycleStart: start), jackFrame: cycle.position,
                              in1: UnsafePointer(h.in1), in2: UnsafePointer(h.in1), out1: h.out1, out2: h.out2)
            periods.append((Int64(cycle.position &- cycles[0].position), Array(UnsafeBufferPointer(start: h.out1, count: cycle.frames)),
                            n > 0 && !cycles[n - 1].processed))
        }
        return periods
    }

    @Test func aQuantumChangeSkipsTheCycleItCountsOnJacksFramesWhateverTheLengths() {
        var h = Self.pipeWireHarness()
        defer { h.release() }
        let n = 24000
        h.send(.volume, spec(0, seconds: Double(n) / 48000))
        // As recorded: a 256-frame period at 1010304, the next one run (1024 frames) at 1011584.
        let quanta = [(256, 6), (1024, 4), (128, 12), (64, 20), (128, 10), (1024, 5), (256, 8), (1024, 8)]
        let cycles = Self.cycles(from: 1010304 - 5 * 256, quanta)
        #expect(cycles[5].position == 1010304 && cycles[7].position == 1011584 && !cycles[6].processed)
        var compared = 0
        for period in Self.render(&h, cycles) where !period.afterSkip {  // that one follows on, as after any gap
            compared += Self.expectOnFade(period, over: n)
        }
        #expect(compared > 15000)
        // Each skipped cycle's counter span: the new quantum, whatever the old one was.
        let changeSpans: [UInt64] = [1024, 128, 64, 128, 1024, 256, 1024]
        #expect(h.renderer.counters.load(.skippedFrames) == changeSpans.reduce(0, +))
        #expect(h.renderer.counters.load(.rewoundFrames) == 0)
    }

    @Test func twoTagsAThousandFramesApartAcrossAQuantumChangeStartAThousandJackFramesApart() {
        var h = Self.pipeWireHarness()
        defer { h.release() }
        // The change's cycle (told 256) starts at 128·8 on the clock; t1 before it, t2 after.
        let cycles = Self.cycles(from: 500_000, [(128, 8), (256, 12)])
        let t1 = Self.tag(atClockFrame: 128 * 7 + 50.3)
        let t2 = t1 &+ Self.ntp(frames: 1000)
        let periods = Self.render(&h, cycles) { n, h in
            guard n == 2 else { return }
            h.send(.volume, spec(0.5, seconds: 0), start: .at(t1))
            h.send(.volume, spec(0.25, seconds: 0), start: .at(t2))
        }
        let followingOn = periods.filter { !$0.afterSkip }
        #expect(Self.firstFrame(of: 0.5, in: followingOn) == Int64(7 * 128 + 50))
        #expect(Self.firstFrame(of: 0.25, in: followingOn) == Int64(7 * 128 + 50 + 1000))
        #expect(h.renderer.counters.load(.late) == 0)
    }

    @Test func aTagAfterAQuantumChangeLandsOnItsCyclesJackFrame() {
        var h = Self.pipeWireHarness()
        defer { h.release() }
        // 256 → 1024: from the change on, the counter is 768 frames ahead of the clock.
        let cycles = Self.cycles(from: 70_000, [(256, 6), (1024, 6)])
        let target = cycles[9]  // the second cycle after the one the skip is confirmed in
        let t = Self.tag(atClockFrame: Double(target.timeFrames) + 300)
        let periods = Self.render(&h, cycles) { n, h in
            if n == 8 { h.send(.volume, spec(0.5, seconds: 0), start: .at(t)) }
        }
        let landed = periods.first { $0.samples.contains(0.5) }.map { $0.frame + Int64($0.samples.firstIndex(of: 0.5)!) }
        #expect(landed == Int64(target.position &- cycles[0].position) + 300, "the cycle's frame plus 300, not 16 cycles' old anchor's")
    }
}
