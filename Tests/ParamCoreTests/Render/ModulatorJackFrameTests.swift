@testable import ParamCore
import Testing

/// SPEC §15, "the wave keeps JACK's time": a modulator is a function of JACK's frame, so
/// cycles JACK ran without paramd (an xrun, a PipeWire quantum change) and frames taken back
/// move it exactly as they move the renderer's clock. Each case renders the same modulator
/// twice from JACK counter readings, once following on and once with gaps, and compares the
/// CV port frame by frame at the renderer's frame.
@Suite struct ModulatorJackFrameTests {
    static let period = 256

    /// JACK counter readings of a run that follows on, then the same with `skips` (frames JACK
    /// ran without paramd after the reading at each given index, each confirmed by the next).
    static func readings(periods: Int, skips: [Int: Int] = [:]) -> [UInt32] {
        var frame: UInt32 = 7_000
        var all: [UInt32] = []
        for i in 0..<periods {
            frame &+= UInt32(period + (skips[i] ?? 0))
            all.append(frame)
        }
        return all
    }

    /// cv_cutoff by renderer frame, under `spec` started after the first period.
    static func sounding(_ spec: ModulatorSpec, readings: [UInt32]) -> [UInt64: Float] {
        var rig = SceneRig(period: period, declared: [("cutoff", 0, 1, .linear)])
        defer { rig.release() }
        let cutoff = rig.members[0]
        rig.send([.animate(cutoff, AnimationSpec(target: 0.5, seconds: 0, curve: .linear, domain: .linear))])
        var byFrame: [UInt64: Float] = [:]
        for (i, reading) in readings.enumerated() {
            if i == 1 { rig.send([.modulate(cutoff, spec)]) }
            rig.renderer.render(frames: period, jackFrame: reading, in1: UnsafePointer(rig.in1), in2: UnsafePointer(rig.in1),
                                out1: rig.out1, out2: rig.out2, cv: UnsafePointer(rig.cv))
            let first = rig.renderer.framePosition - UInt64(period)
            for k in 0..<period { byFrame[first + UInt64(k)] = rig.cv[cutoff.index]![k] }
        }
        return byFrame
    }

    static func spec(_ shape: ModulatorShape, _ rate: ModulatorRate) -> ModulatorSpec {
        var spec = ModulatorSpec(shape: shape, rate: rate)
        spec.depth = 0.25
        spec.seed = 1234
        return spec
    }

    static let rates: [ModulatorRate] = [.hertz(2), .hertz(37.5), .beats(1)]

    /// The worst difference between two runs at the renderer frames both rendered.
    static func compare(_ a: [UInt64: Float], _ b: [UInt64: Float]) -> (compared: Int, worst: Double, at: UInt64) {
        var compared = 0, worst = 0.0, at: UInt64 = 0
        for (frame, value) in b {
            guard let expected = a[frame] else { continue }
            compared += 1
            let difference = Double(abs(value - expected))
            if difference > worst { (worst, at) = (difference, frame) }
        }
        return (compared, worst, at)
    }

    /// Three stalls as JACK makes them, whole cycles of 256, 1024 and 3,584 frames: every shape
    /// sounds, frame for frame, what it sounds at the same frames without them.
    @Test(arguments: ModulatorShape.allCases, rates)
    func framesJackRanWithoutParamdMoveTheWaveAsTheyMoveTheClock(_ shape: ModulatorShape, _ rate: ModulatorRate) {
        let steady = Self.sounding(Self.spec(shape, rate), readings: Self.readings(periods: 400))
        let stalled = Self.sounding(Self.spec(shape, rate), readings: Self.readings(periods: 380, skips: [60: 3584, 150: 1024, 200: 256]))
        let (compared, worst, at) = Self.compare(steady, stalled)
        #expect(compared > 80_000, "\(compared) frames in both runs")
        #expect(worst == 0, "\(shape.name) at \(rate): off by \(worst) at renderer frame \(at)")
        #expect(Set(stalled.values).count > 2, "it moves")
    }

    /// A skip of any length (PipeWire's quantum may be 32 frames, not a whole chunk): the
    /// continuous shapes agree to rounding. A discontinuous one (saw, square, sh) may take a
    /// frame that falls exactly on its jump on either side of it, so it is left out here.
    @Test(arguments: [ModulatorShape.sine, .triangle, .random], rates)
    func aSkipOfAnyLengthMovesTheWaveToo(_ shape: ModulatorShape, _ rate: ModulatorRate) {
        let steady = Self.sounding(Self.spec(shape, rate), readings: Self.readings(periods: 400))
        let stalled = Self.sounding(Self.spec(shape, rate), readings: Self.readings(periods: 380, skips: [60: 3584, 150: 1000, 200: 77]))
        let (compared, worst, at) = Self.compare(steady, stalled)
        #expect(compared > 80_000, "\(compared) frames in both runs")
        #expect(worst <= 1e-6, "\(shape.name) at \(rate): off by \(worst) at renderer frame \(at)")
    }

    /// A step back of JACK's counter (frames skipped wrongly, taken back) takes the wave back.
    @Test(arguments: [ModulatorShape.sine, .sh])
    func framesTakenBackTakeTheWaveBack(_ shape: ModulatorShape) {
        let steady = Self.sounding(Self.spec(shape, .hertz(3)), readings: Self.readings(periods: 300))
        // Two readings 2,048 frames ahead follow on from each other (taken as a skip), then the
        // counter steps back to where it was: the renderer takes the frames back.
        var readings = Self.readings(periods: 300)
        readings[100] &+= 2048
        readings[101] &+= 2048
        let stepped = Self.sounding(Self.spec(shape, .hertz(3)), readings: readings)
        let (compared, worst, at) = Self.compare(steady, stepped)
        #expect(compared > 60_000 && worst == 0, "\(shape.name): off by \(worst) at renderer frame \(at) over \(compared)")
    }
}
