import Foundation
import Testing
@testable import ParamCore

/// A modulator rendered frame by frame over a resting or moving parameter: the sounding value
/// against the analytic wave, phase lock to the timeline, fades, replacement, seeds.
@Suite struct ModulatorTests {
    static let sampleRate = 48_000.0
    static let period = 256
    static let cutoff = ModulationLayer(domain: .linear, minimum: 0, maximum: 1)

    /// Renders `frames` frames from `first` in periods, each period's animated values from
    /// `animated` (frame → value), as a renderer would: increment (and lock) per period.
    static func render(_ modulator: inout Modulator, frames: Int, first: UInt64 = 0, layer: ModulationLayer = cutoff,
                       timeline: Timeline? = nil, animated: (UInt64) -> Double = { _ in 0.5 }) -> [Double] {
        let line = timeline ?? Timeline(tempo: 120, beatsPerBar: 4, sampleRate: sampleRate, originFrame: 0)
        var out = [Double](repeating: 0, count: frames)
        var done = 0
        while done < frames {
            let count = min(period, frames - done)
            let frame = first + UInt64(done)
            let increment = modulator.phaseIncrement(atFrame: frame, sampleRate: sampleRate, timeline: line)
            out.withUnsafeMutableBufferPointer { buffer in
                let chunk = buffer.baseAddress! + done
                for i in 0..<count { chunk[i] = animated(frame + UInt64(i)) }
                modulator.render(chunk, first: frame, count: count, increment: increment, layer: layer)
            }
            done += count
        }
        return out
    }

    static func sine(_ rate: ModulatorRate, depth: Double = 0.25, phase: Double = 0) -> ModulatorSpec {
        var spec = ModulatorSpec(shape: .sine, rate: rate)
        spec.depth = depth
        spec.phaseOffset = phase
        return spec
    }

    @Test func aSineAt2HzOverARestingValueIsTheAnalyticWave() {
        var m = Modulator(Self.sine(.hertz(2)), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let values = Self.render(&m, frames: 96_000)
        var worst = 0.0
        for (k, v) in values.enumerated() {
            let t = Double(k) / Self.sampleRate
            worst = max(worst, abs(v - (0.5 + 0.25 * Foundation.sin(2 * .pi * 2 * t))))
        }
        #expect(worst <= 1e-9, "worst \(worst)")
        // Four cycles (the last frame's phase plus one increment may round to just below 4).
        #expect(abs(Double(m.cycle) + m.phase - 4) < 1e-12, "cycle \(m.cycle), phase \(m.phase)")
    }

    @Test func thePhaseOptionShiftsTheWave() {
        var m = Modulator(Self.sine(.hertz(1), phase: 0.25), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let values = Self.render(&m, frames: 4800)
        for k in stride(from: 0, to: 4800, by: 97) {
            let t = Double(k) / Self.sampleRate
            #expect(abs(values[k] - (0.5 + 0.25 * Foundation.cos(2 * .pi * t))) <= 1e-9)
        }
    }

    /// 4n at 120 BPM is 2 Hz, phase 0 on the timeline's beats, wherever the modulator started.
    @Test func aMusicalRateIsPhaseLockedToTheTimeline() {
        let timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: Self.sampleRate, originFrame: 1000)
        var m = Modulator(Self.sine(.beats(1)), atFrame: 30_000, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let values = Self.render(&m, frames: 48_000, first: 30_000, timeline: timeline)
        var worst = 0.0
        for (k, v) in values.enumerated() {
            let t = Double(30_000 + k - 1000) / Self.sampleRate
            worst = max(worst, abs(v - (0.5 + 0.25 * Foundation.sin(2 * .pi * 2 * t))))
        }
        #expect(worst <= 1e-9, "worst \(worst)")
        // Beat 2 of the timeline is frame 1000 + 48,000: the wave's zero, rising.
        #expect(abs(values[49_000 - 30_000] - 0.5) <= 1e-12)
        #expect(values[49_001 - 30_000] > 0.5)
    }

    /// A tempo change mid-way: the wave stays on the beats of the new tempo. A chunk ends at
    /// the change (48,000 is not a multiple of the 256-frame period), as the renderer splits
    /// its chunks at every change it schedules.
    @Test func aMusicalRateFollowsATempoChange() {
        var timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: Self.sampleRate, originFrame: 0)
        timeline.setTempo(60, atFrame: 48_000)
        var m = Modulator(Self.sine(.beats(1)), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let values = Self.render(&m, frames: 48_000, timeline: timeline)
            + Self.render(&m, frames: 96_000, first: 48_000, timeline: timeline)
        // After the change a beat is 48,000 frames: 1 Hz from beat 2 at frame 48,000.
        var worst = 0.0
        for k in stride(from: 48_000, to: 144_000, by: 1) {
            let t = Double(k - 48_000) / Self.sampleRate
            worst = max(worst, abs(values[k] - (0.5 + 0.25 * Foundation.sin(2 * .pi * t))))
        }
        #expect(worst <= 1e-9, "worst \(worst)")
    }

    /// Animation beneath: the sounding value minus the wave is the animated value, and the
    /// clamp holds at every frame.
    @Test func theLayerRidesOnTheAnimatedValueAndIsClamped() {
        var m = Modulator(Self.sine(.hertz(3), depth: 0.4), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let ramp: (UInt64) -> Double = { 0.2 + 0.7 * Double($0) / 48_000 }
        let values = Self.render(&m, frames: 48_000, animated: ramp)
        var worst = 0.0, clamped = 0
        for (k, v) in values.enumerated() {
            let t = Double(k) / Self.sampleRate
            let unclamped = ramp(UInt64(k)) + 0.4 * Foundation.sin(2 * .pi * 3 * t)
            #expect(v >= 0 && v <= 1)
            if unclamped > 1 { clamped += 1; #expect(v == 1) } else if unclamped < 0 { #expect(v == 0) } else {
                worst = max(worst, abs(v - unclamped))
            }
        }
        #expect(worst <= 1e-9, "worst \(worst)")
        #expect(clamped > 1000)
    }

    @Test func aFadeRaisesTheDepthAlongDefault() {
        var spec = Self.sine(.hertz(2), depth: 0.2)
        spec.fade = .seconds(1)
        var m = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        let values = Self.render(&m, frames: 96_000)
        var state = CurveState()
        var worst = 0.0
        for (k, v) in values.enumerated() {
            let t = Double(k) / Self.sampleRate
            let depth = k >= 48_000 ? 0.2 : 0.2 * TimingCurve.default.value(at: Double(k) / 48_000, state: &state)
            worst = max(worst, abs(v - (0.5 + depth * Foundation.sin(2 * .pi * 2 * t))))
        }
        #expect(worst <= 1e-9, "worst \(worst)")
        #expect(!m.isDepthAnimating && m.depth == 0.2)
    }

    @Test func aStopWithAFadeEndsOnTheAnimatedValueWithoutAStep() {
        var m = Modulator(Self.sine(.hertz(2)), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        var values = Self.render(&m, frames: 12_000)
        m.stop(fadeSeconds: 0.5, atFrame: 12_000, sampleRate: Self.sampleRate)
        values += Self.render(&m, frames: 36_000, first: 12_000)
        #expect(m.hasEnded)
        #expect(values[12_000 + 24_000 ..< 48_000].allSatisfy { $0 == 0.5 })
        // No step larger than the wave's own largest frame-to-frame movement (2π·2·0.25/48,000).
        let largest = 2 * Double.pi * 2 * 0.25 / Self.sampleRate
        for k in 1..<values.count { #expect(abs(values[k] - values[k - 1]) <= largest * 1.0001, "frame \(k)") }
        // Without a fade it ends at once.
        m = Modulator(Self.sine(.hertz(2)), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        m.stop(fadeSeconds: 0, atFrame: 0, sampleRate: Self.sampleRate)
        #expect(m.hasEnded)
        #expect(Self.render(&m, frames: 300).allSatisfy { $0 == 0.5 })
    }

    @Test func theDepthAnimatesWithACurveAndItsOptions() {
        var m = Modulator(Self.sine(.hertz(2), depth: 0.2), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        var spec = AnimationSpec(target: 0, seconds: 2, curve: .default, domain: .linear)
        m.animateDepth(spec, atFrame: 0, sampleRate: Self.sampleRate)
        let values = Self.render(&m, frames: 96_000 + 512)
        var state = CurveState()
        var worst = 0.0
        for (k, v) in values.enumerated() {
            let t = Double(k) / Self.sampleRate
            let depth = k >= 96_000 ? 0 : 0.2 * (1 - TimingCurve.default.value(at: Double(k) / 96_000, state: &state))
            worst = max(worst, abs(v - (0.5 + depth * Foundation.sin(2 * .pi * 2 * t))))
        }
        #expect(worst <= 1e-9, "worst \(worst)")
        #expect(m.depth == 0 && !m.hasEnded)
        // An overshooting curve cannot take the depth outside 0…1; autoreverse rests where it ends.
        spec = AnimationSpec(target: 1, seconds: 0.1, curve: .back(.easeOut, overshoot: 3), domain: .linear)
        spec.autoreverses = true
        m.animateDepth(spec, atFrame: 96_512, sampleRate: Self.sampleRate)
        for k in 0..<9600 {
            let d = m.depth(atFrame: 96_512 + UInt64(k))
            #expect(d >= 0 && d <= 1)
        }
        _ = m.depth(atFrame: 96_512 + 9600)
        #expect(!m.isDepthAnimating && m.depth == 0)
    }

    /// A new /mod continues from the current phase: the sine replaced by a sine at another
    /// rate keeps its value at the frame of the change.
    @Test func aReplacementContinuesFromTheCurrentPhase() {
        var m = Modulator(Self.sine(.hertz(2)), atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        var values = Self.render(&m, frames: 10_000)
        let phase = m.phase, cycle = m.cycle
        m.replace(with: Self.sine(.hertz(5)), atFrame: 10_000, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        #expect(m.phase == phase && m.cycle == cycle)
        values += Self.render(&m, frames: 10_000, first: 10_000)
        let expectedNext = 0.5 + 0.25 * Foundation.sin(2 * .pi * (phase))
        #expect(abs(values[10_000] - expectedNext) <= 1e-12)
        #expect(abs(values[10_001] - (0.5 + 0.25 * Foundation.sin(2 * .pi * (phase + 5 / Self.sampleRate)))) <= 1e-9)
    }

    @Test func randomAndShRepeatWithTheirSeedAndDifferWithout() {
        for shape in [ModulatorShape.random, .sh] {
            var spec = ModulatorSpec(shape: shape, rate: .hertz(7))
            spec.depth = 0.3
            spec.seed = 1234
            var a = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
            var b = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 99)
            let first = Self.render(&a, frames: 48_000), second = Self.render(&b, frames: 48_000)
            #expect(first == second, "\(shape)")
            spec.seed = nil
            var c = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 5)
            #expect(Self.render(&c, frames: 48_000) != first, "\(shape)")
            // Each cycle's values are the generator's: sh holds them, random passes through them.
            let cycleFrames = 48_000.0 / 7
            for n in 0..<6 {
                let k = Int((Double(n) * cycleFrames).rounded(.up))
                let expected = 0.5 + 0.3 * ModulatorRandom.bipolar(seed: 1234, cycle: Int64(n))
                let tolerance = shape == .sh ? 1e-15 : 1e-6
                #expect(abs(first[k] - expected) <= tolerance, "\(shape) cycle \(n)")
                if shape == .sh { #expect(first[k + 100] == first[k]) }
            }
        }
    }

    /// The four-phasor sine against the kernel per frame, over chunks of every awkward length,
    /// with the clamp reached, and the phase and cycle it leaves.
    @Test func theRotatingSineIsTheKernelSineWithin1e12() {
        var spec = Self.sine(.hertz(3.7), depth: 0.6, phase: 0.3)
        for polarity in ModulatorPolarity.allCases {
            spec.polarity = polarity
            var fast = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
            var reference = fast
            let layer = ModulationLayer(domain: .linear, minimum: 0.1, maximum: 0.9)
            var worst = 0.0
            var a = [Double](repeating: 0, count: 300), b = a
            for count in [1, 2, 3, 4, 5, 63, 64, 65, 255, 256, 299, 7, 256, 256] {
                for k in 0..<count { a[k] = 0.3 + 0.001 * Double(k); b[k] = a[k] }
                a.withUnsafeMutableBufferPointer { fast.renderSteadySine($0.baseAddress!, count: count, increment: 3.7 / 48_000, layer: layer) }
                b.withUnsafeMutableBufferPointer {
                    reference.renderSteadyDepth($0.baseAddress!, count: count, increment: 3.7 / 48_000, layer: layer)
                }
                for k in 0..<count { worst = max(worst, abs(a[k] - b[k])) }
                #expect(abs(fast.phase - reference.phase) <= 1e-12 && fast.cycle == reference.cycle)
            }
            #expect(worst <= 1e-12, "\(polarity): worst \(worst)")
        }
    }

    /// The frames wrapped into cycle 6 a rounding before the lock's reading of the same line:
    /// the lock keeps cycle 6 at phase 0 instead of stepping back to cycle 5's value.
    @Test func theLockDoesNotStepBackAcrossALineTheFramesCrossed() {
        var spec = ModulatorSpec(shape: .sh, rate: .beats(1))
        spec.seed = 3
        var m = Modulator(spec, atFrame: 0, sampleRate: Self.sampleRate, tempo: 120, defaultSeed: 0)
        m.lock(toPosition: 5.9)
        _ = m.nextCycle(1.0000000000000002)
        #expect(m.cycle == 6)
        m.lock(toPosition: 6 - 1e-13)
        #expect(m.cycle == 6 && m.phase == 0)
        #expect(m.randomFrom == ModulatorRandom.bipolar(seed: 3, cycle: 6))
        // A real step back (a relocated transport) is followed.
        m.lock(toPosition: 2.5)
        #expect(m.cycle == 2 && m.phase == 0.5 && m.randomFrom == ModulatorRandom.bipolar(seed: 3, cycle: 2))
    }

    @Test func aModulatorIsPlainFixedSizeData() {
        // No larger than the largest command the ring carries already (a keyframe animation).
        #expect(MemoryLayout<Modulator>.size <= MemoryLayout<KeyframeSpec>.size, "\(MemoryLayout<Modulator>.size)")
        #expect(_isPOD(Modulator.self) && _isPOD(ModulatorSpec.self))
    }
}
