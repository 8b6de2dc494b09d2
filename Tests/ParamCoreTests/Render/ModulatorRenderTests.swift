@testable import ParamCore
import Foundation
import Testing

/// Modulators in the renderer (SPEC §15), frame by frame on a declared linear `cutoff` 0…1
/// with a CV port in its own units (SceneRig): the layer over the animated value, what the
/// snapshot publishes, the depth and the stop, and repeatable random shapes.
@Suite struct ModulatorRenderTests {
    static let rate = 48000.0

    /// A rig with `cutoff` resting at `value`, its first period rendered.
    static func rig(restingAt value: Double = 0.5) -> (SceneRig, ParameterID) {
        var rig = SceneRig(declared: [("cutoff", 0, 1, .linear)])
        let cutoff = rig.members[0]
        rig.send([.animate(cutoff, AnimationSpec(target: value, seconds: 0, curve: .linear, domain: .linear))])
        _ = rig.render(periods: 1)
        return (rig, cutoff)
    }

    /// `default` (cubic Bézier 0.25, 0.1, 0.25, 1) at `progress`, by bisection on x.
    static func defaultCurve(_ progress: Double) -> Double {
        func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
        }
        var low = 0.0, high = 1.0
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if bezier(mid, 0.25, 0.25) < progress { low = mid } else { high = mid }
        }
        return bezier((low + high) / 2, 0.1, 1)
    }

    static func sine(_ hz: Double, depth: Double) -> ModulatorSpec {
        var spec = ModulatorSpec(shape: .sine, rate: .hertz(hz))
        spec.depth = depth
        return spec
    }

    @Test func aSineOverARestingValueSoundsOnTheCVPortFrameByFrame() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(2, depth: 0.25))])
        let take = rig.render(periods: 200)
        let cv = take.cv[cutoff.index]!
        var worst = 0.0
        for (i, sample) in cv.enumerated() {
            let expected = 0.5 + 0.25 * sin(2 * Double.pi * 2 * Double(i) / Self.rate)
            worst = max(worst, abs(Double(sample) - expected))
        }
        #expect(worst < 1e-6, "largest difference from 0.5 + 0.25·sin(2π·2t): \(worst)")
        // The animated value stays underneath; the snapshot carries what sounds.
        #expect(rig.renderer.parameter(cutoff).value == 0.5)
        #expect(rig.renderer.parameter(cutoff).target == 0.5)
        #expect(take.ends[cutoff.index]!.last! == Double(cv.last!) || abs(take.ends[cutoff.index]!.last! - Double(cv.last!)) < 1e-7)
        #expect(take.ends[cutoff.index]!.last! != 0.5)
        // A value event every period while modulated.
        let values = rig.events().filter { if case .value(let p, _) = $0 { p == cutoff } else { false } }
        #expect(values.count == 200)
    }

    @Test func theSoundingValueMinusTheWaveIsTheOrdinaryCurve() {
        var (plain, p1) = Self.rig()
        var (modulated, p2) = Self.rig()
        defer { plain.release(); modulated.release() }
        modulated.send([.modulate(p2, Self.sine(2, depth: 0.1))])
        _ = modulated.render(periods: 3)
        _ = plain.render(periods: 3)
        let start = 3 * 256
        let ramp = AnimationSpec(target: 0.8, seconds: 1, curve: .default, domain: .linear)
        plain.send([.animate(p1, ramp)])
        modulated.send([.animate(p2, ramp)])
        let a = plain.render(periods: 200).cv[p1.index]!, b = modulated.render(periods: 200).cv[p2.index]!
        var worst = 0.0
        for i in 0..<a.count {
            let wave = 0.1 * sin(2 * Double.pi * 2 * Double(start + i) / Self.rate)
            worst = max(worst, abs(Double(b[i]) - Double(a[i]) - wave))
        }
        #expect(worst < 1e-6, "sounding − wave against the unmodulated curve: \(worst)")
        #expect(modulated.renderer.parameter(p2).value == plain.renderer.parameter(p1).value)
    }

    @Test func theSoundingValueIsClampedToTheRangeAtEveryFrame() {
        var (rig, cutoff) = Self.rig(restingAt: 0.9)
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(5, depth: 0.5))])
        let cv = rig.render(periods: 100).cv[cutoff.index]!
        #expect(cv.allSatisfy { $0 >= 0 && $0 <= 1 })
        // Every frame is the clamped sum, the top held at exactly 1.
        var worst = 0.0
        for (i, sample) in cv.enumerated() {
            let expected = min(1, max(0, 0.9 + 0.5 * sin(2 * Double.pi * 5 * Double(i) / Self.rate)))
            worst = max(worst, abs(Double(sample) - expected))
        }
        #expect(worst < 1e-6, "largest difference from clamp(0.9 + 0.5·sin(2π·5t)): \(worst)")
        #expect(cv.filter { $0 == 1 }.count > 1000, "the wave's top is held at the range's end")
        #expect(cv.min()! < 0.5)
    }

    @Test func aDepthFadeToZeroEndsOnTheAnimatedValue() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(2, depth: 0.25))])
        _ = rig.render(periods: 20)
        rig.send([.modulateDepth(cutoff, AnimationSpec(target: 0, seconds: 0.5, curve: .default, domain: .linear))])
        let cv = rig.render(periods: 120).cv[cutoff.index]!
        let after = cv[(Int(0.5 * Self.rate) + 1)...]
        #expect(after.allSatisfy { $0 == 0.5 }, "the wobble is gone after the depth's fade")
        #expect(cv[1000] != 0.5, "still wobbling during the fade")
    }

    /// The depth at each period's end goes to `depthSnapshot` with the serial of the command it
    /// follows (`/mod/get` replies it): during a fade to 0 over 2 s it falls strictly between
    /// the two ends, along `default`, and is 0 once the fade is over.
    @Test func theDepthIsPublishedEveryPeriodAsItFades() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(2, depth: 0.25))], serial: 7)
        _ = rig.render(periods: 2)
        #expect(rig.renderer.depthSnapshot.reading(cutoff) == ModulatorDepthReading(depth: 0.25, serial: 7))
        rig.send([.modulateDepth(cutoff, AnimationSpec(target: 0, seconds: 2, curve: .default, domain: .linear))], serial: 8)
        var depths: [Double] = []
        for period in 1...370 {  // the fade lasts 375 periods
            _ = rig.render(periods: 1)
            let reading = rig.renderer.depthSnapshot.reading(cutoff)
            #expect(reading.serial == 8)
            depths.append(reading.depth)
            // The period's last frame is 256·period − 1 frames into the fade.
            let progress = Double(256 * period - 1) / (2 * Self.rate)
            #expect(abs(reading.depth - 0.25 * (1 - Self.defaultCurve(progress))) < 1e-7)
        }
        #expect(depths.allSatisfy { $0 > 0 && $0 < 0.25 }, "strictly between the ends: \(depths.min()!)…\(depths.max()!)")
        #expect(zip(depths, depths.dropFirst()).allSatisfy { $1 < $0 }, "falling every period")
        _ = rig.render(periods: 10)
        #expect(rig.renderer.depthSnapshot.reading(cutoff) == ModulatorDepthReading(depth: 0, serial: 8))
    }

    @Test func aStopWithAFadeEndsOnTheAnimatedValueWithoutAStep() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(2, depth: 0.25))])
        let before = rig.render(periods: 20).cv[cutoff.index]!
        rig.send([.stopModulator(cutoff, fadeSeconds: 0.25)])
        let cv = rig.render(periods: 100).cv[cutoff.index]!
        // The most a frame moves at full depth: 0.25 · 2π · 2 / 48000.
        let largestStep = 0.25 * 2 * Double.pi * 2 / Self.rate
        var steps = [abs(Double(cv[0]) - Double(before.last!))]
        for i in 1..<cv.count { steps.append(abs(Double(cv[i]) - Double(cv[i - 1]))) }
        #expect(steps.max()! <= largestStep * 1.01)
        #expect(cv.last! == 0.5)
        #expect(rig.renderer.modulators.active.isEmpty, "the slot leaves the modulated ones once its modulator ended")
        #expect(rig.renderer.sounding(cutoff) == 0.5)
        // At rest again: no value events.
        _ = rig.events()
        _ = rig.render(periods: 2)
        #expect(rig.events().isEmpty)
    }

    @Test func aNewModulatorContinuesFromThePhase() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        rig.send([.modulate(cutoff, Self.sine(2, depth: 0.25))])
        let before = rig.render(periods: 10).cv[cutoff.index]!
        var triangle = ModulatorSpec(shape: .triangle, rate: .hertz(2))
        triangle.depth = 0.25
        rig.send([.modulate(cutoff, triangle)])
        let after = rig.render(periods: 1).cv[cutoff.index]!
        let phase = 2 * Double(10 * 256) / Self.rate
        #expect(abs(Double(after[0]) - (0.5 + 0.25 * ModulatorWave.triangle(phase))) < 1e-6)
        #expect(abs(Double(before.last!) - (0.5 + 0.25 * ModulatorWave.sine(phase - 2 / Self.rate))) < 1e-6)
    }

    @Test(arguments: [ModulatorShape.random, .sh])
    func aSeededRandomShapeRepeats(_ shape: ModulatorShape) {
        func record(seed: UInt64) -> [Float] {
            var (rig, cutoff) = Self.rig()
            defer { rig.release() }
            var spec = ModulatorSpec(shape: shape, rate: .hertz(20))
            spec.depth = 0.4
            spec.seed = seed
            rig.send([.modulate(cutoff, spec)])
            return rig.render(periods: 50).cv[cutoff.index]!
        }
        let first = record(seed: 7), second = record(seed: 7), other = record(seed: 8)
        #expect(first == second)
        #expect(first != other)
        #expect(Set(first).count > 5)
    }

    @Test func aMusicalRateLocksToTheTimelinesBeats() {
        var (rig, cutoff) = Self.rig()
        defer { rig.release() }
        var spec = ModulatorSpec(shape: .saw, rate: .beats(1))
        spec.depth = 0.25
        rig.send([.modulate(cutoff, spec)])
        let cv = rig.render(periods: 200).cv[cutoff.index]!
        // 120 BPM at 48 kHz: a beat every 24,000 frames from frame 0; this take starts at 256.
        for beatFrame in [24000, 48000] {
            #expect(abs(Double(cv[beatFrame - 256]) - 0.5) < 1e-6, "the saw passes 0 on the beat at \(beatFrame)")
        }
        #expect(abs(Double(cv[12000 - 256 - 1]) - 0.75) < 1e-3, "and peaks half a beat later")
    }

    @Test func aModulatedSignalPathParameterMovesTheMixAndKeepsItsValue() {
        var rig = SceneRig(declared: [])
        defer { rig.release() }
        var spec = ModulatorSpec(shape: .square, rate: .hertz(100))
        spec.depth = 0.5
        let volumeBefore = rig.renderer.parameter(.volume).value
        rig.send([.modulate(.input, spec)])
        let take = rig.render(periods: 10)
        #expect(rig.renderer.parameter(.input).value == rig.renderer.parameter(.input).target)
        #expect(rig.renderer.parameter(.volume).value == volumeBefore)
        #expect(Set(take.out1).count > 1, "the input's gain moves the output")
    }
}
