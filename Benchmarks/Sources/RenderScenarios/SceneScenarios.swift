// Scenes (SPEC §13): a recall's members sharing one curve evaluation per frame, and parameters
// bound to `morph`, against the same members animated separately ("Declared: N animating on
// default, each with a CV port"). Read per member: (median − "idle, tone off") / N.

import ParamCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum SceneScenarios {
    /// `count` declared parameters with CV ports, 0…1 (linear) or 20…20 000 Hz (log, dB: a
    /// gain 0…1 in dB), the five idle and the tone off.
    static func members(_ count: Int, _ domain: ValueDomain) -> (ParameterRegistry, [ParameterID], ClosedRange<Double>) {
        var registry = ParameterRegistry.builtIn
        let range: ClosedRange<Double> = domain == .log ? 20...20000 : 0...1
        let ids = (0..<count).map { i in
            try! registry.declare(ParameterSpec(name: "p\(i)", minimum: range.lowerBound, maximum: range.upperBound,
                                                initial: range.lowerBound, domain: domain, cv: .value))
        }
        return (registry, ids, range)
    }

    /// Every member in one recall (group 1) along `default`, back and forth for ever, each
    /// between its own two values (a fifth and four fifths of the way, in its domain).
    public static func recall(_ count: Int, _ domain: ValueDomain) -> Scenario {
        let (registry, ids, range) = members(count, domain)
        let commands: [Command] = ids.enumerated().map { i, p in
            let (low, high) = values(range, domain, shift: Double(i) / Double(4 * count))
            var spec = AnimationSpec(target: high, seconds: passSeconds, curve: curve("default"), domain: domain)
            spec.from = low
            spec.repeatCount = .infinity
            spec.autoreverses = true
            spec.group = 1
            return .animate(p, spec)
        }
        return Scenario("Scene: \(count) members, recall, \(domain.name)", registry: registry, commands)
    }

    /// Every member bound to `morph` (no glide), `morph` moving 0 ↔ 1 along `default` for ever.
    public static func morph(_ count: Int, _ domain: ValueDomain) -> Scenario {
        let (registry, ids, range) = members(count, domain)
        var commands: [Command] = ids.enumerated().map { i, p in
            let (low, high) = values(range, domain, shift: Double(i) / Double(4 * count))
            return .bind(p, MorphBinding(from: low, to: high, domain: domain, glideSeconds: 0, glideCurve: .linear))
        }
        commands.append(moving(.morph, from: 0, to: 1, "default"))
        return Scenario("Scene: \(count) members, morph, \(domain.name)", registry: registry, commands)
    }

    /// Two values inside `range`, a fifth and four fifths of the way in `domain`, moved by `shift`.
    static func values(_ range: ClosedRange<Double>, _ domain: ValueDomain, shift: Double) -> (Double, Double) {
        let low = domain.encode(max(range.lowerBound, 1e-3)), high = domain.encode(range.upperBound)
        let at = { (u: Double) in domain.decode(low + (high - low) * u) }
        return (at(0.2 + shift * 0.1), at(0.8 - shift * 0.1))
    }

    public static var all: [Scenario] {
        var list: [Scenario] = []
        for count in [8, 64] {
            for domain in [ValueDomain.linear, .log, .db] {
                list.append(recall(count, domain))
                list.append(morph(count, domain))
            }
        }
        return list
    }
}

/// The period in which a recall's values are put in place: before each period a new recall of
/// `count` members arrives (alternating between two sets of values) and takes over the last
/// one, so the period drains, applies and starts `count` animations, then renders them.
public final class RecallRig: @unchecked Sendable {
    public let name: String
    private let rig: Rig
    private let recalls: [[TimedCommand]]
    private var next = 0

    public init(members count: Int) {
        let scenario = SceneScenarios.recall(count, .linear)
        name = "Scene: \(count) members recalled in one period, linear"
        rig = Rig(Scenario(name, registry: scenario.registry, []))
        recalls = [0.3, 0.7].map { target in
            scenario.commands.map { c in
                guard case .animate(let p, var spec) = c else { return TimedCommand(c) }
                spec.from = .nan
                spec.target = target
                spec.repeatCount = 1
                spec.autoreverses = false
                return TimedCommand(.animate(p, spec))
            }
        }
    }

    /// The control thread's part, not measured: pushes the next recall as one packet.
    public func pushRecall() {
        rig.push(recalls[next])
        next ^= 1
    }

    /// Renders one period (the recall pushed before it starts on its first frame); returns the
    /// nanoseconds it took.
    public func renderPeriod() -> Int64 { rig.render(periods: 1) }

    public var sink: Float { rig.sink }
}
