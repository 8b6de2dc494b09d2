@testable import ParamCore
import Testing

/// The JACK-to-system clock offset between measurements (ClockOffset.swift): carried at the
/// rate it was seen to change, published to the audio side without waiting.
@Suite struct ClockOffsetTests {
    @Test func theOffsetIsCarriedAtItsRate() {
        let model = ClockOffsetModel(offsetMicros: 1_000_000, jackMicros: 5_000_000, ppm: 20)
        #expect(model.offset(atJackMicros: 5_000_000) == 1_000_000)
        #expect(model.offset(atJackMicros: 6_000_000) == 1_000_020, "20 ppm: 20 µs a second")
        #expect(model.offset(atJackMicros: 5_500_000) == 1_000_010)
        #expect(model.offset(atJackMicros: 4_000_000) == 999_980, "before the measurement too")
        let still = ClockOffsetModel(offsetMicros: -7, jackMicros: 5, ppm: 0)
        #expect(still.offset(atJackMicros: 123_456_789) == -7)
        #expect(ClockOffsetModel(offsetMicros: 3, jackMicros: 0, ppm: .nan).offset(atJackMicros: 10_000_000) == 3)
        #expect(ClockOffsetModel(offsetMicros: 3, jackMicros: 0, ppm: 1e300).offset(atJackMicros: 10_000_000) == 3)
    }

    @Test func theDriftRoundsToNearestWithTiesAwayFromZeroAsRoundedDoes() {
        // Against `rounded()` (what the audio side cannot call) over drifts of both signs,
        // ties included, and the bounds of the guard.
        var random = FrameClockTests.Random(state: 11)
        for _ in 0..<100_000 {
            let ppm = random.symmetric() * 1000
            let elapsed = Int64(random.symmetric() * 4e9)
            let model = ClockOffsetModel(offsetMicros: 17, jackMicros: 10_000_000_000, ppm: ppm)
            let drift = Double(elapsed) * ppm * 1e-6
            #expect(model.offset(atJackMicros: UInt64(10_000_000_000 + elapsed)) == 17 + Int64(drift.rounded()), "elapsed \(elapsed), ppm \(ppm)")
        }
        for (elapsed, ppm, drift) in [(1_000_000, 2.5, 3), (-1_000_000, 2.5, -3), (1_000_000, 0.5, 1), (-1_000_000, 0.5, -1),
                                      (1_000_000, 0.49999, 0), (-1_000_000, 0.49999, 0)] as [(Int64, Double, Int64)] {
            let model = ClockOffsetModel(offsetMicros: 0, jackMicros: 5_000_000, ppm: ppm)
            #expect(model.offset(atJackMicros: UInt64(5_000_000 + elapsed)) == drift, "\(elapsed) µs at \(ppm) ppm")
        }
        #expect(Math.magnitudeIsBelow(-3, 4) && Math.magnitudeIsBelow(3, 4) && !Math.magnitudeIsBelow(-4, 4))
        #expect(!Math.magnitudeIsBelow(.nan, 4) && !Math.magnitudeIsBelow(-.infinity, 4) && !Math.magnitudeIsBelow(5, -4))
        #expect(Math.magnitudeIsBelow(-0.0, 1e-300) && !Math.magnitudeIsBelow(0, 0))
    }

    /// A system clock slewed 20 ppm faster than JACK's (chrony correcting a frequency error),
    /// measured once a second: the cycle starts built between measurements, held constant and
    /// carried at the fitted rate.
    @Test func carriedAtTheFittedRateACycleStartIsOffByTheMeasurementNoiseNotBySawTeeth() {
        let ppm = 20.0
        func trueOffset(_ jackMicros: Double) -> Double { 1_700_000_000e6 + jackMicros * ppm * 1e-6 }
        var samples: [(time: Double, offset: Double)] = []
        var worstHeld = 0.0, worstCarried = 0.0
        var seed: UInt64 = 11
        func noise() -> Double {  // ±0.5 µs, as whole-microsecond reads give
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for second in 0..<30 {
            let at = Double(second) * 1e6 + 12_345
            let trend = ClockOffsetTrend(samples)
            let measured = Int64((trueOffset(at) + noise()).rounded())
            let model = ClockOffsetModel(offsetMicros: measured, jackMicros: UInt64(at), ppm: trend?.carriedPPM() ?? 0)
            let held = ClockOffsetModel(offsetMicros: measured, jackMicros: UInt64(at), ppm: 0)
            samples.append((at / 1e6, Double(measured) - 1_700_000_000e6))
            if samples.count > 16 { samples.removeFirst() }
            guard second >= 5 else { continue }
            for cycle in stride(from: 0.0, to: 1e6, by: 5333.0) {
                let t = at + cycle
                worstHeld = max(worstHeld, abs(Double(held.offset(atJackMicros: UInt64(t))) - trueOffset(t)))
                worstCarried = max(worstCarried, abs(Double(model.offset(atJackMicros: UInt64(t))) - trueOffset(t)))
            }
        }
        print(String(format: "offset 20 ppm, measured once a second: held constant off by up to %.1f µs, carried %.1f µs", worstHeld, worstCarried))
        #expect(worstHeld > 19)
        #expect(worstCarried < 2)
    }

    @Test func aStepInTheWindowOrTooFewMeasurementsCarryNoRate() {
        let steady = (0..<8).map { (time: Double($0), offset: 100 + 5 * Double($0)) }
        #expect(ClockOffsetTrend(steady)?.carriedPPM() == 5)
        #expect(ClockOffsetTrend(steady)!.rms < 1e-9)
        #expect(ClockOffsetTrend(Array(steady.prefix(3)))?.carriedPPM() == 0, "three measurements: no rate yet")
        #expect(ClockOffsetTrend(Array(steady.prefix(2))) == nil)
        var stepped = steady
        for i in 4..<8 { stepped[i].offset += 1000 }  // the system clock stepped by 1 ms
        #expect(ClockOffsetTrend(stepped)!.rms > 20)
        #expect(ClockOffsetTrend(stepped)?.carriedPPM() == 0)
        let wild = (0..<8).map { (time: Double($0), offset: 2000 * Double($0)) }
        #expect(ClockOffsetTrend(wild)?.carriedPPM() == 0, "2000 ppm is no discipline's slew")
    }

    @Test func aPublishedOffsetIsReadWholeAndNothingBeforeIt() {
        let cell = PublishedClockOffset()
        defer { cell.deallocate() }
        #expect(cell.read() == nil)
        for k in 0..<5 {
            let model = ClockOffsetModel(offsetMicros: Int64(-k * 1000), jackMicros: UInt64(k), ppm: Double(k) / 3)
            cell.publish(model)
            #expect(cell.read() == model)
        }
    }
}
