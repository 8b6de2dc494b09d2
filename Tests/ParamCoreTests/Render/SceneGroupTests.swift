@testable import ParamCore
import Testing

/// Scene recalls (SPEC §13): the members of a recall that start together share one curve
/// evaluation per frame, and each still sounds, frame by frame, what it would as a lone
/// animation.
@Suite struct SceneGroupTests {
    static let declared: [(String, Double, Double, ValueDomain)] = [
        ("gain", 0, 1, .linear), ("cutoff", 20, 20000, .log), ("level", 0, 2, .db), ("width", -1, 1, .linear),
        ("q", 0.1, 10, .log), ("send", 0, 1, .db), ("mix", 0, 1, .linear), ("drive", 1, 100, .log),
    ]

    /// The recall: every declared member and three of the signal path to new values, along
    /// `curve`, all in group 7 (or none).
    static func recall(_ rig: SceneRig, group: UInt32, curve: String = "default", seconds: Double = 0.3,
                       repeatCount: Double = 1, autoreverses: Bool = false) -> [Command] {
        let targets: [Double] = [0.8, 5000, 1.5, -0.6, 4, 0.25, 0.9, 60]
        var commands: [Command] = []
        var members: [(ParameterID, Double, ValueDomain)] = zip(rig.members, targets).map { ($0, $1, rig.registry[$0].domain) }
        members += [(.volume, 0.3, .linear), (.frequency, 1200, .log), (.pan, 0.7, .linear)]
        for (p, target, domain) in members {
            var spec = AnimationSpec(target: target, seconds: seconds, curve: try! TimingCurve.parse(curve), domain: domain)
            spec.group = group
            spec.repeatCount = repeatCount
            spec.autoreverses = autoreverses
            commands.append(.animate(p, spec))
        }
        return commands
    }

    /// The same recall rendered as a group and as separate animations: the same samples on
    /// every CV port and on out_1 (Float, to the bit), and the same values at every period's
    /// end within 1e-12 (relative). Only the group reads a shared curve, one for all members.
    @Test(arguments: [("default", 1.0, false), ("easeInOutElastic", 1.0, false), ("spring(0.4)", 1.0, false),
                      ("easeInEaseOut", 2.5, true)])
    func aRecallAsAGroupSoundsWhatSeparateAnimationsSound(curve: String, repeatCount: Double, autoreverses: Bool) {
        var grouped = SceneRig(declared: Self.declared)
        var separate = SceneRig(declared: Self.declared)
        defer { grouped.release(); separate.release() }
        _ = grouped.render(periods: 2)
        _ = separate.render(periods: 2)
        grouped.send(Self.recall(grouped, group: 7, curve: curve, repeatCount: repeatCount, autoreverses: autoreverses))
        separate.send(Self.recall(separate, group: 0, curve: curve, repeatCount: repeatCount, autoreverses: autoreverses))
        let first = grouped.render(periods: 1), firstSeparate = separate.render(periods: 1)
        #expect(grouped.sharedEntriesInUse == 1)
        let entries = Set((grouped.members + [.volume, .frequency, .pan]).map { grouped.sharedEntry($0) })
        #expect(entries == [0], "every member reads entry 0: \(entries)")
        #expect(separate.sharedEntriesInUse == 0)
        #expect(separate.sharedEntry(.volume) == -1)
        let rest = grouped.render(periods: 300), restSeparate = separate.render(periods: 300)
        for (take, other) in [(first, firstSeparate), (rest, restSeparate)] {
            #expect(take.out1 == other.out1)
            for p in grouped.members {
                #expect(take.cv[p.index] == other.cv[p.index], "\(grouped.registry[p].name)")
                for (a, b) in zip(take.ends[p.index]!, other.ends[p.index]!) {
                    #expect(abs(a - b) <= 1e-12 * max(1, abs(b)), "\(grouped.registry[p].name): \(a) against \(b)")
                }
            }
        }
        // Every member has ended, and the shared entry is freed.
        for p in grouped.members + [.volume, .frequency, .pan] { #expect(grouped.renderer.parameter(p).layerCount == 0) }
        if !autoreverses { #expect(grouped.renderer.sounding(grouped.members[1]) == 5000) }
        #expect(grouped.sharedEntriesInUse == 0)
        #expect(!grouped.renderer.curves.inUse)
    }

    /// Per frame, in double precision (one-frame periods): the group's values are a lone
    /// animation's within 1e-12 at every frame.
    @Test func everyFrameOfEveryMemberMatchesItsLoneAnimation() {
        var grouped = SceneRig(period: 1, declared: Self.declared)
        var separate = SceneRig(period: 1, declared: Self.declared)
        defer { grouped.release(); separate.release() }
        grouped.send(Self.recall(grouped, group: 3, seconds: 0.05))
        separate.send(Self.recall(separate, group: 0, seconds: 0.05))
        let a = grouped.render(periods: 2600), b = separate.render(periods: 2600)
        var worst = 0.0
        for p in grouped.members + [.volume, .frequency, .pan] {
            for (x, y) in zip(a.ends[p.index]!, b.ends[p.index]!) { worst = max(worst, abs(x - y) / max(1, abs(y))) }
        }
        #expect(worst <= 1e-12, "worst relative difference \(worst)")
        #expect(abs(a.ends[grouped.members[1].index]!.last! - 5000) < 1e-9)
    }

    /// `stagger`: members sent with delays start on their own frames; each evaluates its own
    /// curve (one entry per start frame), and sounds what it would alone.
    @Test func staggeredMembersStartOnTheirOwnFrames() {
        var grouped = SceneRig(declared: Self.declared)
        var separate = SceneRig(declared: Self.declared)
        defer { grouped.release(); separate.release() }
        let delays = (0..<11).map { Double($0) * 0.01 }
        grouped.send(Self.recall(grouped, group: 9), delays: delays)
        separate.send(Self.recall(separate, group: 0), delays: delays)
        let a = grouped.render(periods: 30), b = separate.render(periods: 30)
        #expect(a.cv == b.cv)
        #expect(a.out1 == b.out1)
        // 480 frames apart at 48 kHz: each member's first moving frame.
        let gain = a.cv[grouped.members[0].index]!, cutoff = a.cv[grouped.members[1].index]!
        #expect(gain.firstIndex { $0 != 0 } == 1)
        #expect(cutoff.firstIndex { $0 != 20 } == 481)
    }

    /// A message for one member during a recall takes over that member only: its `done` says
    /// 0 and the group; the others run on in the group and end with 1 and the group.
    @Test func interruptingAMemberTakesItOutOfTheGroupOnly() {
        var rig = SceneRig(declared: Self.declared)
        var lone = SceneRig(declared: Self.declared)
        defer { rig.release(); lone.release() }
        rig.send(Self.recall(rig, group: 12))
        lone.send(Self.recall(lone, group: 0))
        let before = rig.render(periods: 10), loneBefore = lone.render(periods: 10)
        #expect(before.cv == loneBefore.cv)
        let gain = rig.members[0]
        rig.send([.animate(gain, AnimationSpec(target: 0.1, seconds: 0.1, curve: .linear, domain: .linear))])
        lone.send([.animate(gain, AnimationSpec(target: 0.1, seconds: 0.1, curve: .linear, domain: .linear))])
        let after = rig.render(periods: 100), loneAfter = lone.render(periods: 100)
        #expect(after.cv == loneAfter.cv)
        let ends = rig.events().compactMap { e -> (ParameterID, Bool, UInt32)? in
            if case .done(let p, let finished, _, _, let group) = e { (p, finished, group) } else { nil }
        }
        let gainEnds = ends.filter { $0.0 == gain }
        #expect(gainEnds.count == 2 && gainEnds[0].1 == false && gainEnds[0].2 == 12 && gainEnds[1] == (gain, true, 0))
        let others = ends.filter { $0.0 != gain }
        #expect(others.count == 10 && others.allSatisfy { $0.1 && $0.2 == 12 }, "\(others)")
    }

    /// A full table (more start frames than entries) leaves the rest to evaluate their own
    /// curves: the same samples.
    @Test func beyondTheTablesEntriesMembersEvaluateTheirOwnCurve() {
        var grouped = SceneRig(declared: Self.declared)
        var separate = SceneRig(declared: Self.declared)
        defer { grouped.release(); separate.release() }
        var commands: [Command] = [], delays: [Double] = []
        for k in 0..<(SharedCurves.capacity + 4) {
            for c in Self.recall(grouped, group: UInt32(k + 1), seconds: 0.2) { commands.append(c); delays.append(Double(k) / 48000) }
        }
        grouped.send(commands, delays: delays)
        separate.send(commands.map { c in
            guard case .animate(let p, var s) = c else { return c }
            s.group = 0
            return .animate(p, s)
        }, delays: delays)
        let a = grouped.render(periods: 60), b = separate.render(periods: 60)
        #expect(a.cv == b.cv)
        #expect(a.out1 == b.out1)
    }
}
