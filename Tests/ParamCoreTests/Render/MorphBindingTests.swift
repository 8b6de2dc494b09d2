import Foundation
@testable import ParamCore
import Testing

/// Morph bindings (SPEC §13): a bound parameter sounds, at every frame, the point `morph` of the
/// way between its two values in its own domain; it glides in, a message for it takes it away,
/// and `unbind` leaves it where it sounds.
@Suite struct MorphBindingTests {
    static let declared: [(String, Double, Double, ValueDomain)] = [("cutoff", 20, 20000, .log), ("gain", 0, 1, .linear), ("level", 0, 2, .db)]

    static func binding(_ from: Double, _ to: Double, _ domain: ValueDomain, glide: Double = 0, curve: TimingCurve = .linear) -> MorphBinding {
        MorphBinding(from: from, to: to, domain: domain, glideSeconds: glide, glideCurve: curve)
    }

    static func morph(to target: Double, seconds: Double, curve: String = "linear") -> Command {
        .animate(.morph, AnimationSpec(target: target, seconds: seconds, curve: try! TimingCurve.parse(curve), domain: .linear))
    }

    /// A rig of `declared` whose `gain` (members[1]) is bound from 0 to 1, with morph sent to 1 over 0.5 s.
    static func gainBoundToAMorph() -> SceneRig {
        var rig = SceneRig(declared: declared)
        rig.send([.bind(rig.members[1], binding(0, 1, .linear)), morph(to: 1, seconds: 0.5)])
        return rig
    }

    /// One-frame periods, so each period's end is a frame: every bound member, at every frame,
    /// is the point `morph` of the way between its values in its domain (log: evenly in log),
    /// within 1e-12 relative; `volume`, of the signal path, too.
    @Test func boundMembersFollowMorphFrameByFrameInTheirDomains() {
        var rig = SceneRig(period: 1, declared: Self.declared)
        defer { rig.release() }
        let (cutoff, gain, level) = (rig.members[0], rig.members[1], rig.members[2])
        rig.send([.bind(cutoff, Self.binding(200, 8000, .log)), .bind(gain, Self.binding(0.2, 0.9, .linear)),
                  .bind(level, Self.binding(0.01, 1.5, .db)), .bind(.volume, Self.binding(1, 0.25, .linear)),
                  Self.morph(to: 1, seconds: 0.02, curve: "easeInEaseOut")])
        let take = rig.render(periods: 1200)
        let morph = take.ends[ParameterID.morph.index]!
        #expect(morph.last == 1 && morph[400] > 0.3 && morph[400] < 0.7)
        var worst = 0.0
        for (k, m) in morph.enumerated() {
            for (p, from, to, domain) in [(cutoff, 200.0, 8000.0, ValueDomain.log), (gain, 0.2, 0.9, .linear), (level, 0.01, 1.5, .db),
                                          (ParameterID.volume, 1.0, 0.25, .linear)] {
                let expected = domain.decode(domain.encode(from) + (domain.encode(to) - domain.encode(from)) * m)
                worst = max(worst, abs(take.ends[p.index]![k] - expected) / expected)
            }
        }
        #expect(worst <= 1e-12, "worst relative difference \(worst)")
        // Evenly in log: halfway through morph, the geometric mean.
        let half = morph.firstIndex { $0 >= 0.5 }!
        let m = morph[half]
        #expect(abs(take.ends[cutoff.index]![half] - 200 * pow(40, m)) < 1e-9)
        // Per-sample out_1 (DC in, tone off) is volume · input at every frame.
        #expect(take.out1.last == Float(0.25))
    }

    /// The target (`/get`, the snapshot) is the bound value at `morph`'s target, from the frame
    /// morph's animation starts.
    @Test func theTargetIsTheBoundValueAtMorphsTarget() {
        var rig = SceneRig(declared: Self.declared)
        defer { rig.release() }
        let gain = rig.members[1]
        rig.send([.bind(gain, Self.binding(0.2, 0.6, .linear))])
        _ = rig.render(periods: 1)
        #expect(rig.renderer.renderedTarget(gain) == 0.2 && rig.renderer.sounding(gain) == 0.2)
        rig.send([Self.morph(to: 0.5, seconds: 1)])
        _ = rig.render(periods: 1)
        #expect(abs(rig.renderer.renderedTarget(gain) - 0.4) < 1e-15)
        #expect(rig.renderer.sounding(gain) > 0.2 && rig.renderer.sounding(gain) < 0.21)
    }

    /// Binding glides in from what sounds along the binding's curve: no jump, and the bound
    /// value once the glide has ended.
    @Test(arguments: ["linear", "default"])
    func bindingGlidesInWithoutAJump(curve: String) {
        var rig = SceneRig(declared: Self.declared)
        defer { rig.release() }
        let cutoff = rig.members[0]
        rig.send([.animate(cutoff, AnimationSpec(target: 100, seconds: 0, curve: .linear, domain: .log))])
        _ = rig.render(periods: 1)
        rig.send([.bind(cutoff, Self.binding(1000, 4000, .log, glide: 0.1, curve: try! TimingCurve.parse(curve)))])
        let take = rig.render(periods: 40)
        let port = take.cv[cutoff.index]!
        #expect(port[0] < 100.2 && port[0] >= 100)
        // Evenly in log over 4800 frames: no step larger than the steepest the curve allows.
        var largest = 0.0
        for k in 1..<4800 { largest = max(largest, abs(log(Double(port[k]) / Double(port[k - 1])))) }
        #expect(largest < 3 * log(10) / 4800)
        #expect(port[4800...].allSatisfy { $0 == 1000 }, "the bound value once the glide has ended")
    }

    /// A message for one bound member takes it away (it starts from what it sounds); the other
    /// members keep following `morph`.
    @Test func aMessageForABoundMemberUnbindsThatMemberOnly() {
        var rig = SceneRig(period: 1, declared: Self.declared)
        defer { rig.release() }
        let (cutoff, gain) = (rig.members[0], rig.members[1])
        rig.send([.bind(cutoff, Self.binding(200, 8000, .log)), .bind(gain, Self.binding(0, 1, .linear)), Self.morph(to: 1, seconds: 0.02)])
        var take = rig.render(periods: 400)
        let soundingBefore = take.ends[cutoff.index]!.last!
        rig.send([.animate(cutoff, AnimationSpec(target: 50, seconds: 0.01, curve: .linear, domain: .log))])
        take = rig.render(periods: 600)
        let cutoffAfter = take.ends[cutoff.index]!, morph = take.ends[ParameterID.morph.index]!
        // It starts from what it sounded (one frame's step of its own animation), ends on 50.
        #expect(abs(log(cutoffAfter[0] / soundingBefore)) < 2 * log(8000 / 50.0) / 480)
        #expect(cutoffAfter.last == 50)
        for (k, m) in morph.enumerated() { #expect(abs(take.ends[gain.index]![k] - m) < 1e-15) }
        #expect(rig.renderer.morph.count == 1)
    }

    /// `unbind`: the parameter stays where it sounds, its target becomes that value, and the
    /// control side hears so (a `TargetUpdate` with the unbind's serial).
    @Test func unbindLeavesItWhereItSounds() {
        var rig = Self.gainBoundToAMorph()
        defer { rig.release() }
        let gain = rig.members[1]
        _ = rig.render(periods: 20)
        _ = rig.updates()
        rig.send([.unbind(gain)], serial: 41)
        _ = rig.render(periods: 1)
        let held = rig.renderer.sounding(gain)
        #expect(held > 0.1 && held < 0.9)
        #expect(rig.updates() == [TargetUpdate(parameter: gain, value: held, serial: 41)])
        let take = rig.render(periods: 100)
        #expect(take.cv[gain.index]!.allSatisfy { $0 == Float(held) })
        #expect(rig.renderer.renderedTarget(gain) == held)
        #expect(rig.renderer.sounding(.morph) == 1)
    }

    /// Binding ends the animations in flight (`done` 0); undeclaring a bound parameter unbinds
    /// it; declaring it again leaves it unbound. A stop unbinds and freezes it.
    @Test func declareUndeclareAndStopUnbind() {
        var rig = SceneRig(declared: Self.declared)
        defer { rig.release() }
        let (cutoff, gain, level) = (rig.members[0], rig.members[1], rig.members[2])
        rig.send([.animate(gain, AnimationSpec(target: 1, seconds: 1, curve: .linear, domain: .linear))])
        _ = rig.render(periods: 2)
        _ = rig.events()
        rig.send([.bind(gain, Self.binding(0, 1, .linear)), .bind(cutoff, Self.binding(100, 200, .log)),
                  .bind(level, Self.binding(0.5, 1, .db)), Self.morph(to: 1, seconds: 1)])
        _ = rig.render(periods: 2)
        #expect(rig.events().contains { if case .done(gain, false, _, _, 0) = $0 { true } else { false } })
        #expect(rig.renderer.morph.count == 3)
        rig.send([.undeclare(gain)])
        _ = rig.render(periods: 1)
        #expect(rig.renderer.morph.count == 2 && !rig.renderer.morph.slots.contains(gain.index))
        rig.send([.declare(gain, SlotSetup(rig.registry[gain], value: 0.3))])
        let take = rig.render(periods: 4)
        #expect(take.cv[gain.index]!.allSatisfy { $0 == 0.3 })
        rig.send([.stop(cutoff)], serial: 5)
        _ = rig.render(periods: 1)
        let frozen = rig.renderer.sounding(cutoff)
        let after = rig.render(periods: 10)
        #expect(after.cv[cutoff.index]!.allSatisfy { $0 == Float(frozen) })
        #expect(rig.renderer.morph.count == 1)
        // `level` still follows morph.
        #expect(rig.renderer.sounding(level) > 0.5)
    }

    /// Bound parameters report their moving values to the publisher like animated ones.
    @Test func boundMembersReportTheirValues() {
        var rig = Self.gainBoundToAMorph()
        defer { rig.release() }
        let gain = rig.members[1]
        _ = rig.render(periods: 3)
        let values = rig.events().filter { if case .value(gain, _) = $0 { true } else { false } }
        #expect(values.count == 3)
    }
}
