@testable import ParamCore
import Testing

/// FrameClock against synthetic JACK cycle times: a clock that does not run at the nominal
/// rate, jitter, a late callback, a clock step, a jump of JACK's delay-locked loop. "Truth" is
/// the frame the synthetic clock itself gives a time (unrounded); the placement error is the
/// placed frame minus it. SPEC §4.6: a tag starts on the frame its cycle's clock gives it, and
/// tags N/rate s apart start N frames apart.
@Suite struct FrameClockTests {
    static let nominal = 48000
    static let period = 256
    static let units = 4_294_967_296.0

    /// A deterministic generator (the tests' SplitMix64), so failures reproduce.
    struct Random {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        /// Uniform in [-1, 1).
        mutating func symmetric() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    /// A JACK clock: frame `f` starts at `base + f / rate` seconds, plus whatever `extra(f)`
    /// adds (seconds), as NTP time.
    struct SyntheticClock {
        var base: OSCTimeTag = 0xE000_0000_0000_0000
        var rate: Double
        /// The clock's time of frame `f` (real-valued frames allowed), in NTP units from `base`.
        func units(_ f: Double, extra: Double = 0) -> Double { (f / rate + extra) * FrameClockTests.units }
        func tag(_ f: Double, extra: Double = 0) -> OSCTimeTag { base &+ UInt64(bitPattern: Int64(units(f, extra: extra).rounded())) }
        /// The frame (unrounded) this clock gives `time`, with `extra` seconds added to it.
        func frame(of time: OSCTimeTag, extra: Double = 0) -> Double {
            (Double(Int64(bitPattern: time &- base)) / FrameClockTests.units - extra) * rate
        }
    }

    /// Feeds `cycles` cycles of `clock` (with `extra(cycle)` seconds on each reading) and, in
    /// each, checks `tagsPerCycle` random tags falling in that cycle: their error against the
    /// frame SPEC §4.6 gives them from the cycle's start without the extra (`against: .line`)
    /// or with it (`.reading`, what JACK reported). Returns the largest error and the clock.
    enum Reference { case line, reading }
    static func run(rate: Double, cycles: Int, tagsPerCycle: Int = 4, seed: UInt64 = 1, against reference: Reference = .line,
                    extra: (Int, inout Random) -> Double = { _, _ in 0 }) -> (maxError: Double, clock: FrameClock) {
        let clock = SyntheticClock(rate: rate)
        var fc = FrameClock()
        var random = Random(state: seed)
        var worst = 0.0
        for c in 0..<cycles {
            let frame = UInt64(c * period)
            let e = extra(c, &random)
            let reading = clock.tag(Double(frame), extra: e)
            fc.observe(cycleStart: reading, frame: frame, sampleRate: nominal, periodFrames: period)
            // SPEC §4.6: a frame's time is its cycle's start plus its offset at the nominal rate.
            let start = reference == .line ? clock.tag(Double(frame)) : reading
            for _ in 0..<tagsPerCycle {
                let tag = clock.tag(Double(frame) + random.unit() * Double(period))
                let truth = Double(frame) + Double(Int64(bitPattern: tag &- start)) / units * Double(nominal)
                worst = max(worst, abs(Double(fc.frame(at: tag)) - truth))
            }
        }
        return (worst, fc)
    }

    @Test func aClockRunningAFrameASecondSlowIsFollowedWithinHalfAFrame() {
        // The dummy driver measured 47998.3…47998.7 frames/s by JACK's own cycle times.
        for rate in [47999.0, 48001.0, 47990.0] {
            let (worst, fc) = Self.run(rate: rate, cycles: 3750)  // 20 s
            #expect(worst <= 0.5 + 1e-6, "rate \(rate): worst placement error \(worst) frames")
            #expect(fc.reanchors == 1 && fc.rejected == 0 && fc.breaks == 0)
        }
    }

    @Test func theOldDesignOfOneAnchorAtTheNominalRateWasUpToTwoFramesLate() {
        // The measurement behind the change, kept as a check of the synthetic clock: one anchor
        // extrapolated at 48000 frames/s on a 47999 Hz clock, re-anchored only once more than
        // a frame off, places tags up to 1.5 frames late, 0.8 on average.
        let clock = SyntheticClock(rate: 47999)
        var anchor = (frame: 0.0, time: clock.tag(0))
        var worst = 0.0, late = 0.0
        for c in 0..<3750 {
            let frame = Double(c * Self.period)
            let start = clock.tag(frame)
            let predicted = anchor.frame + Double(start.frames(since: anchor.time, sampleRate: Self.nominal))
            if abs(predicted - frame) > 1 { anchor = (frame, start) }
            let tag = clock.tag(frame + 100.5)
            let placed = anchor.frame + Double(tag.frames(since: anchor.time, sampleRate: Self.nominal))
            worst = max(worst, abs(placed - clock.frame(of: tag)))
            late += placed - clock.frame(of: tag)
        }
        print(String(format: "one anchor at the nominal rate, 47999 Hz clock: worst %.2f frames, mean %+.2f frames", worst, late / 3750))
        #expect(worst > 1.0)
    }

    @Test func jitterOfFiveMicrosecondsAddsOnlyItself() {
        let jitter = 5e-6
        let (toLine, _) = Self.run(rate: 47999, cycles: 3750, seed: 7) { _, r in r.symmetric() * jitter }
        let (toReading, fc) = Self.run(rate: 47999, cycles: 3750, seed: 7, against: .reading) { _, r in r.symmetric() * jitter }
        print(String(format: "47999 Hz, ±5 µs jitter: worst %.3f frames from the clock's line, %.3f from each cycle's own reading", toLine, toReading))
        #expect(toReading <= 0.5 + 1e-6, "against the cycle's own reading: rounding only")
        #expect(toLine <= 0.5 + jitter * 48000 + 1e-6, "against the line: rounding and the reading's jitter")
        #expect(fc.rejected == 0 && fc.reanchors == 1)
    }

    @Test func tagsAThousandFramesApartStayExactlyAThousandApartOnADriftingJitteryClock() {
        // Pairs of tags 1000/48000 s apart, placed as the renderer places them: each in the
        // cycle it falls in, holding the anchor after each placement.
        let clock = SyntheticClock(rate: 47999)
        var fc = FrameClock()
        var random = Random(state: 3)
        let distance = UInt64((1000.0 / 48000 * Self.units).rounded())
        var pairs = 0, exact = 0
        var worst = 0.0
        var pending: [(tag: OSCTimeTag, partner: Int64?)] = []
        for c in 0..<20_000 {
            let frame = UInt64(c * Self.period)
            let end = Int64(frame) + Int64(Self.period)
            fc.observe(cycleStart: clock.tag(Double(frame), extra: random.symmetric() * 5e-6), frame: frame,
                       sampleRate: Self.nominal, periodFrames: Self.period)
            // A new pair about every 0.3 s, its first tag 0.1 s ahead.
            if c % 56 == 0 {
                let t1 = clock.tag(Double(frame) + 4800 + random.unit() * Double(Self.period))
                pending.append((t1, nil))
            }
            var kept: [(tag: OSCTimeTag, partner: Int64?)] = []
            for p in pending {
                let placed = fc.frame(at: p.tag)
                guard placed < end else { kept.append(p); continue }
                fc.hold(placedAt: UInt64(placed))
                worst = max(worst, abs(Double(placed) - clock.frame(of: p.tag)))
                if let first = p.partner {
                    pairs += 1
                    if placed - first == 1000 { exact += 1 }
                } else {
                    kept.append((p.tag &+ distance, placed))
                }
            }
            pending = kept
        }
        print("47999 Hz, ±5 µs jitter: \(exact) of \(pairs) pairs tagged 1000/48000 s apart start exactly 1000 frames apart; worst placement \(worst) frames; \(fc.breaks) holds broken")
        #expect(pairs > 300)
        #expect(exact == pairs)
        #expect(worst <= 1.0)
    }

    @Test func withoutTheHoldPairsWouldNotBeExact() {
        // The control for the test above: the same clock and pairs, the anchor never held.
        let clock = SyntheticClock(rate: 47999)
        var fc = FrameClock()
        var random = Random(state: 3)
        var pairs = 0, exact = 0
        for c in 0..<20_000 {
            let frame = UInt64(c * Self.period)
            fc.observe(cycleStart: clock.tag(Double(frame), extra: random.symmetric() * 5e-6), frame: frame,
                       sampleRate: Self.nominal, periodFrames: Self.period)
            guard c % 56 == 0 else { continue }
            // The first tag in this cycle, the second four cycles on, each with its cycle's anchor.
            let offset = random.unit() * 200
            let first = fc.frame(at: clock.tag(Double(frame) + offset))
            var later = fc
            for k in 1...4 {
                let f = frame + UInt64(k * Self.period)
                later.observe(cycleStart: clock.tag(Double(f), extra: random.symmetric() * 5e-6), frame: f,
                              sampleRate: Self.nominal, periodFrames: Self.period)
            }
            let second = later.frame(at: clock.tag(Double(frame) + offset) &+ UInt64((1000.0 / 48000 * Self.units).rounded()))
            pairs += 1
            if second - first == 1000 { exact += 1 }
        }
        print("without the hold: \(exact) of \(pairs) pairs exact")
        #expect(exact < pairs)
    }

    @Test func aLateCallbackIsNotBelievedAndDoesNotReanchor() {
        // The callback of the cycle at frame 25_600 runs after the next cycle began and reads
        // the next cycle's start.
        let (worst, fc) = Self.run(rate: 47999, cycles: 400) { c, _ in c == 100 ? Double(Self.period) / 47999 : 0 }
        #expect(fc.rejected == 1)
        #expect(fc.reanchors == 1)
        #expect(worst <= 0.5 + 256.0 / 48000 + 1e-6, "the cycle after the last believed one: \(worst)")
    }

    @Test func aStepOfTheClockIsFollowedAfterPatience() {
        // The system clock stepped by 10 ms (the measured offset moves with it).
        var fc = FrameClock()
        let clock = SyntheticClock(rate: 47999)
        var placedAfter: [Double] = []
        for c in 0..<200 {
            let frame = UInt64(c * Self.period)
            let step = c >= 100 ? 0.010 : 0
            fc.observe(cycleStart: clock.tag(Double(frame), extra: step), frame: frame, sampleRate: Self.nominal, periodFrames: Self.period)
            if c >= 100 + FrameClock.patience {
                let tag = clock.tag(Double(frame) + 10, extra: step)
                placedAfter.append(Double(fc.frame(at: tag)) - clock.frame(of: tag, extra: step))
            }
        }
        #expect(fc.rejected == FrameClock.patience - 1 || fc.rejected == FrameClock.patience)
        #expect(fc.reanchors == 2)
        #expect(placedAfter.allSatisfy { abs($0) <= 0.5 + 1e-6 }, "\(placedAfter.map { abs($0) }.max() ?? 0)")
    }

    @Test func aHeldAnchorStaysThroughALastingStepOfTheClockAgainstTheCounter() throws {
        // Seen on PipeWire at a 1024 → 128 quantum change: the counter kept pace while the
        // clock moved on by 896 frames, with no step of the counter to flag it. Tags 1000
        // frames apart all along (the anchor held) keep their distances through it; once
        // they stop and the hold ends, a tag lands on the moved clock's frame.
        let clock = SyntheticClock(rate: 48000)
        let step = 896.0 / 48000
        var fc = FrameClock()
        var placed: [Int64] = []
        var afterHold: Double? = nil
        for c in 0..<400 {
            let frame = UInt64(c * Self.period)
            let extra = c >= 100 ? step : 0
            fc.observe(cycleStart: clock.tag(Double(frame), extra: extra), frame: frame, sampleRate: Self.nominal, periodFrames: Self.period)
            let next = Double(placed.count * 1000 + 300)
            if c < 200 && next < Double(frame) + Double(Self.period) {
                let f = fc.frame(at: clock.tag(next))
                fc.hold(placedAt: UInt64(max(f, 0)))
                placed.append(f)
            }
            if c == 350 {
                let tag = clock.tag(Double(frame) + 10, extra: step)
                afterHold = Double(fc.frame(at: tag)) - clock.frame(of: tag, extra: step)
            }
        }
        let distances = Set(zip(placed, placed.dropFirst()).map { $1 - $0 })
        #expect(placed.count > 45 && distances == [1000], "\(placed.count) tags, distances \(distances.sorted())")
        #expect(fc.reanchors == 1, "held, not re-anchored: \(fc.reanchors)")
        #expect(fc.rejected == FrameClock.patience, "the readings of the streak: \(fc.rejected)")
        #expect(abs(try #require(afterHold)) <= 0.5 + 1e-6, "after the hold: \(afterHold ?? .nan) frames from the clock")
    }

    @Test func aJumpOfJacksLoopIsFollowedOnceTheHeldAnchorIsOlderThanTheHold() {
        // Measured: after a late wake-up JACK2's loop period went from 5333.5 to 5340 µs and
        // took a second to come back (0.3 frames a cycle). Modelled as 6.5 µs more per cycle
        // for 200 cycles, with tags placed all along (the anchor always held). A young anchor
        // is kept: at most what the loop moves in `holdSeconds` (19 cycles here) from it.
        let clock = SyntheticClock(rate: 47998.5)
        var fc = FrameClock()
        var extra = 0.0
        var worst = 0.0
        for c in 0..<600 {
            let frame = UInt64(c * Self.period)
            if c >= 100 && c < 300 { extra += 6.5e-6 }
            fc.observe(cycleStart: clock.tag(Double(frame), extra: extra), frame: frame, sampleRate: Self.nominal, periodFrames: Self.period)
            let tag = clock.tag(Double(frame) + 128, extra: extra)
            let placed = fc.frame(at: tag)
            fc.hold(placedAt: UInt64(placed))
            worst = max(worst, abs(Double(placed) - clock.frame(of: tag, extra: extra)))
        }
        let youth = (Double(Self.nominal) * FrameClock.holdSeconds / Double(Self.period)).rounded(.up)
        let bound = 0.5 + (youth + 1) * 6.5e-6 * Double(Self.nominal)
        print("a jump of JACK's loop under a steady hold: worst \(worst) frames (bound \(bound)), \(fc.breaks) holds broken")
        #expect(worst <= bound)
        #expect(worst > 2, "the young anchor was kept through part of the jump")
        #expect(fc.breaks >= 10, "given up once the anchor was old and off by ½ frame: \(fc.breaks)")
        #expect(fc.reanchors == 1)
    }

    @Test func pairsStayExactWhileJacksLoopJumps() {
        // What a full test run showed on this machine: JACK's loop moving 0.75 frames a cycle
        // after late wake-ups, and a pair tagged 1000/48000 s apart placed 997 frames apart
        // when the hold gave way at ½ frame. Pairs begun at every phase of such a jump.
        let clock = SyntheticClock(rate: 47998.5)
        let distance = UInt64((1000.0 / 48000 * Self.units).rounded())
        var pairs = 0, exact = 0
        for start in stride(from: 80, to: 140, by: 3) {
            var fc = FrameClock()
            var extra = 0.0
            var first: Int64? = nil
            var pending: OSCTimeTag? = nil
            for c in 0..<200 {
                let frame = UInt64(c * Self.period)
                if c >= 100 && c < 130 { extra += 0.75 / 48000 }
                fc.observe(cycleStart: clock.tag(Double(frame), extra: extra), frame: frame, sampleRate: Self.nominal, periodFrames: Self.period)
                if c == start { pending = clock.tag(Double(frame) + 300, extra: extra) }
                guard let tag = pending else { continue }
                let placed = fc.frame(at: tag)
                guard placed < Int64(frame) + Int64(Self.period) else { continue }
                fc.hold(placedAt: UInt64(placed))
                if let f = first {
                    pairs += 1
                    if placed - f == 1000 { exact += 1 }
                    pending = nil
                } else {
                    first = placed
                    pending = tag &+ distance
                }
            }
        }
        print("JACK's loop moving 0.75 frames a cycle: \(exact) of \(pairs) pairs exact")
        #expect(pairs == 20 && exact == pairs)
    }

    @Test func aSampleRateChangeReanchors() {
        var fc = FrameClock()
        let clock = SyntheticClock(rate: 48000)
        fc.observe(cycleStart: clock.tag(0), frame: 0, sampleRate: 48000, periodFrames: 256)
        fc.observe(cycleStart: clock.tag(256), frame: 256, sampleRate: 44100, periodFrames: 256)
        #expect(fc.reanchors == 2 && fc.sampleRate == 44100 && fc.anchorFrame == 256)
    }
}
