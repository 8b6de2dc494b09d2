import Testing
@testable import ParamCore

/// The reference curves and springs at the level of the animation engine: the value an
/// animation sounds at a frame, at the sample rates paramd meets.
@Suite struct EngineReferenceTests {
    /// 640000 frames put every progress listed in curves.csv on a whole frame.
    static let frames = 640_000.0

    static let families = ["easeIn", "easeOut", "easeInOut", "steps", "curve("]

    @Test(arguments: [44100.0, 48000.0, 96000.0])
    func everyPennerStepsAndCurvatureRowHoldsAtTheFrameItNames(sampleRate: Double) throws {
        let rows = try ReferenceData.curves().filter { row in
            Self.families.contains { row.curve.hasPrefix($0) } && row.curve != "easeInEaseOut"
        }
        #expect(rows.count > 2000)
        var worst = 0.0
        var checked = 0
        for (name, group) in groupedInOrder(rows, by: \.curve) {
            let curve = try TimingCurve.parse(name)
            // frequency, linear domain, 1000 → 2000 Hz: room for every overshoot.
            let spec = AnimationSpec(target: 2000, seconds: Self.frames / sampleRate, curve: curve, domain: .linear)
            var animation = Animation(from: 1000, spec: spec, startFrame: 0, sampleRate: sampleRate, velocity: .nan)
            #expect(animation.passFrames == Int64(Self.frames))
            var track = KeyframeTrack()
            for row in group {
                let k = row.progress * Self.frames
                guard k == k.rounded(), k >= 0 else { continue }
                let value = (animation.value(atOffset: Int64(k), track: &track) - 1000) / 1000
                worst = max(worst, abs(value - row.value))
                #expect(abs(value - row.value) < 1e-6, "\(name) at \(row.progress): \(value) vs \(row.value)")
                checked += 1
            }
        }
        #expect(checked > 2000)
        print("engine, \(Int(sampleRate)) Hz: \(checked) rows, worst \(worst)")
    }

    @Test(arguments: [44100.0, 48000.0, 96000.0])
    func everySpringRowHoldsAtTheFrameOfItsTime(sampleRate: Double) throws {
        let rows = try ReferenceData.springs()
        var worst = 0.0
        var afterSettle = 0
        for (_, group) in groupedInOrder(rows, by: { "\($0.mass),\($0.stiffness),\($0.damping),\($0.velocity)" }) {
            let r = group[0]
            let curve = TimingCurve.spring(mass: r.mass, stiffness: r.stiffness, damping: r.damping, velocity: r.velocity)
            let spec = AnimationSpec(target: 1, seconds: 0.25, curve: curve, domain: .linear)
            var animation = Animation(from: 0, spec: spec, startFrame: 0, sampleRate: sampleRate, velocity: .nan)
            var track = KeyframeTrack()
            for row in group {
                let k = (row.seconds * sampleRate).rounded()
                #expect(abs(k / sampleRate - row.seconds) < 1e-12)
                let offset = min(Int64(k), animation.totalFrames)
                let value = animation.value(atOffset: offset, track: &track)
                if Int64(k) < animation.totalFrames {
                    worst = max(worst, abs(value - row.value))
                    #expect(abs(value - row.value) < 1e-6, "\(curve) at \(row.seconds) s: \(value) vs \(row.value)")
                } else {
                    // Settled: exactly on the target, which the reference is within 1e-4 of.
                    afterSettle += 1
                    #expect(value == 1)
                    #expect(abs(row.value - 1) < 1e-4)
                }
            }
        }
        print("springs, \(Int(sampleRate)) Hz: worst \(worst) before settling; \(afterSettle) rows after")
    }
}
