import Foundation
import Testing
@testable import ParamCore

/// springs.csv, the settle criterion, and the closed forms in each damping regime.
@Suite("Physical springs match the reference and settle as defined")
struct SpringTests {
    static let tolerance = 1e-7
    static let threshold = SpringMotion.settleThreshold
    static let rows: [ReferenceData.SpringRow] = (try? ReferenceData.springs()) ?? []
    static let springs: [String] = groupedInOrder(rows, by: spelling).map(\.key)

    static func spelling(_ row: ReferenceData.SpringRow) -> String {
        let numbers = [row.mass, row.stiffness, row.damping, row.velocity].map(TimingCurve.format)
        return "spring(\(numbers.joined(separator: ",")))"
    }

    @Test("The reference file is there, with under-, critically and over-damped springs")
    func referenceFileCoversEveryRegime() throws {
        let rows = try ReferenceData.springs()
        #expect(rows.count == 2408)
        let ratios = Set(rows.map { SpringMotion(mass: $0.mass, stiffness: $0.stiffness, damping: $0.damping).dampingRatio })
        #expect(ratios.contains { $0 < 1 })
        #expect(ratios.contains(1))
        #expect(ratios.contains { $0 > 1 })
    }

    @Test("Before it settles a spring matches the reference within 1e-7; after, the reference is within 1e-4 of the target",
          arguments: springs)
    func springMatchesReferenceUntilItSettles(spelling: String) throws {
        let curve = try TimingCurve.parse(spelling)
        var state = CurveState()
        // The message's duration is ignored.
        let settle = curve.prepare(requestedSeconds: 0.25, velocity: .nan, state: &state)
        #expect(settle > 0 && settle < SpringMotion.maximumSettleSeconds)
        var before = 0, after = 0
        var worst = 0.0
        for row in Self.rows where Self.spelling(row) == spelling {
            let progress = row.seconds / settle
            let value = curve.value(at: min(progress, 1), state: &state)
            if row.seconds < settle {
                before += 1
                worst = max(worst, abs(value - row.value))
                #expect(abs(value - row.value) <= Self.tolerance,
                        "\(spelling) at \(row.seconds) s: \(value), reference \(row.value)")
            } else {
                after += 1
                #expect(value == 1)
                #expect(abs(row.value - 1) <= Self.threshold,
                        "\(spelling) at \(row.seconds) s, after settling at \(settle) s: reference \(row.value)")
            }
        }
        #expect(before > 0)
        print("\(spelling): settles at \(settle) s; \(before) rows before (worst error \(worst)), \(after) after")
    }

    @Test("The velocity given with the message overrides the spring's own")
    func velocityOptionOverridesTheCurvesOwn() throws {
        let plain = try TimingCurve.parse("spring(1,100,10)")
        let own = try TimingCurve.parse("spring(1,100,10,5)")
        var a = CurveState(), b = CurveState(), c = CurveState()
        let ta = plain.prepare(requestedSeconds: 1, velocity: 5, state: &a)
        let tb = own.prepare(requestedSeconds: 1, velocity: .nan, state: &b)
        let tc = own.prepare(requestedSeconds: 1, velocity: .infinity, state: &c)
        #expect(ta == tb && tb == tc)
        for k in 0...100 {
            let p = Double(k) / 100
            let v = plain.value(at: p, state: &a)
            #expect(v == own.value(at: p, state: &b))
            #expect(v == own.value(at: p, state: &c))
        }
        var d = CurveState()
        let td = own.prepare(requestedSeconds: 1, velocity: 0, state: &d)
        var e = CurveState()
        #expect(td == plain.prepare(requestedSeconds: 1, velocity: .nan, state: &e))
    }

    @Test("Under-damped: the settle time is ln(√(1 + (a/ωd)²)/ε)/σ")
    func underDampedSettleTimeHasItsClosedForm() {
        // m 1, k 100, c 10: σ = 5, ωd = √75, a = σ = 5 → √(1 + 1/3) = 2/√3.
        let settle = SpringMotion(mass: 1, stiffness: 100, damping: 10).settleSeconds()
        #expect(abs(settle - log(2 / 3.0.squareRoot() / Self.threshold) / 5) <= 1e-13)
    }

    @Test("Critically damped: (1 + |a|·T)·e^(−σT) = ε")
    func criticallyDampedSettleTimeSolvesItsEnvelope() {
        for velocity in [0.0, 4, 10, 40, -7] {
            let spring = SpringMotion(mass: 1, stiffness: 100, damping: 20, velocity: velocity)
            let settle = spring.settleSeconds()
            let envelope = (1 + abs(10 - velocity) * settle) * exp(-10 * settle)
            #expect(abs(envelope / Self.threshold - 1) <= 1e-12, "velocity \(velocity)")
        }
    }

    @Test("Over-damped from rest: the envelope is the motion itself, and it is ε from the target at T")
    func overDampedSettleTimeSolvesItsEnvelope() {
        for damping in [21.0, 30, 60, 200] {
            let spring = SpringMotion(mass: 1, stiffness: 100, damping: damping)
            let settle = spring.settleSeconds()
            #expect(abs((1 - spring.position(atSeconds: settle)) / Self.threshold - 1) <= 1e-9, "damping \(damping)")
        }
    }

    static let assortedSprings: [SpringMotion] = {
        var springs: [SpringMotion] = []
        for (mass, stiffness) in [(1.0, 100.0), (2, 300), (0.5, 1000), (1, 170), (3, 20)] {
            let critical = 2 * (stiffness * mass).squareRoot()
            for ratio in [0.05, 0.3, 0.7, 0.99, 1, 1.01, 1.5, 4] {
                for velocity in [0.0, 1, 5, -2, 30] {
                    springs.append(SpringMotion(mass: mass, stiffness: stiffness, damping: ratio * critical,
                                                velocity: velocity))
                }
            }
        }
        return springs
    }()

    @Test("After its settle time a spring stays within 1e-4 of the target for good")
    func remainingMotionStaysWithinTheThreshold() {
        for spring in Self.assortedSprings {
            let settle = spring.settleSeconds()
            guard settle < SpringMotion.maximumSettleSeconds else { continue }
            var worst = 0.0
            for k in 0...4000 {
                let t = settle * (1 + Double(k) / 400)
                worst = max(worst, abs(1 - spring.position(atSeconds: t)))
            }
            #expect(worst <= Self.threshold * (1 + 1e-9), "\(spring): \(worst) after \(settle) s")
        }
    }

    @Test("The settle time is continuous across critical damping")
    func settleTimeIsContinuousAcrossCriticalDamping() {
        for (stiffness, velocity) in [(100.0, 0.0), (170, -2), (100, 25), (400, 3)] {
            let critical = 2 * stiffness.squareRoot()
            let atCritical = SpringMotion(mass: 1, stiffness: stiffness, damping: critical, velocity: velocity).settleSeconds()
            for offset in [1e-12, 1e-9, 1e-6] {
                for sign in [-1.0, 1.0] {
                    let damping = critical * (1 + sign * offset)
                    let settle = SpringMotion(mass: 1, stiffness: stiffness, damping: damping, velocity: velocity).settleSeconds()
                    #expect(abs(settle / atCritical - 1) <= 10 * offset,
                            "k \(stiffness), v \(velocity), damping \(damping): \(settle) vs \(atCritical)")
                }
            }
        }
    }

    @Test("The closed forms are continuous across critical damping")
    func closedFormsAreContinuousAcrossCriticalDamping() {
        for velocity in [0.0, -2, 25] {
            let critical = SpringMotion(mass: 1, stiffness: 100, damping: 20, velocity: velocity)
            for damping in [20 * (1 - 1e-9), 20 * (1 + 1e-9)] {
                let near = SpringMotion(mass: 1, stiffness: 100, damping: damping, velocity: velocity)
                for k in 0...200 {
                    let t = Double(k) / 100
                    #expect(abs(near.position(atSeconds: t) - critical.position(atSeconds: t)) <= 1e-8)
                }
            }
        }
    }

    @Test("A spring without damping stops after 60 s; one with almost none too")
    func undampedSpringsAreCapped() throws {
        for text in ["spring(1,100,0)", "spring(1,100,0.001)", "spring(1,1,1000)"] {
            let curve = try TimingCurve.parse(text)
            var state = CurveState()
            #expect(curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state) == SpringMotion.maximumSettleSeconds)
            #expect(curve.value(at: 1, state: &state) == 1)
        }
    }

    @Test("Springs at the edges of the accepted ranges stay finite and settle within the cap")
    func extremeSpringsStayFinite() {
        let limits = TimingCurve.Limits.self
        for mass in [limits.mass.lowerBound, 1, limits.mass.upperBound] {
            for stiffness in [limits.stiffness.lowerBound, 100, limits.stiffness.upperBound] {
                for damping in [0, 1e-3, 20, limits.damping.upperBound] {
                    for velocity in [0, limits.velocity, -limits.velocity] {
                        let curve = TimingCurve.spring(mass: mass, stiffness: stiffness, damping: damping, velocity: velocity)
                        var state = CurveState()
                        let settle = curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state)
                        #expect(settle > 0 && settle <= SpringMotion.maximumSettleSeconds, "\(curve): \(settle)")
                        for k in 0...200 {
                            #expect(curve.value(at: Double(k) / 200, state: &state).isFinite, "\(curve)")
                        }
                    }
                }
            }
        }
    }

    @Test("A spring starts exactly at 0 and ends exactly at 1, and overshoots when under-damped")
    func springEndpointsAreExact() throws {
        let curve = try TimingCurve.parse("spring(1,100,10)")
        var state = CurveState()
        _ = curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state)
        #expect(curve.value(at: 0, state: &state) == 0)
        #expect(curve.value(at: 1, state: &state) == 1)
        let peak = (0...1000).map { curve.value(at: Double($0) / 1000, state: &state) }.max()!
        #expect(peak > 1.1)
    }
}

/// UIKit-style springs: mass 1, the damping ratio given, stiffness fitted to the duration.
@Suite("UIKit springs settle exactly at the message's duration")
struct UIKitSpringTests {
    static let ratios = [0.05, 0.3, 0.5, 0.8, 0.99, 1, 1.01, 1.5, 3, 20]
    static let velocities = [0.0, 0.5, 1, 5, -3, 25]
    static let durations = [0.01, 0.25, 1, 4, 600]

    @Test("The fitted spring settles at the duration by the physical spring's criterion", arguments: ratios)
    func fittedSpringSettlesAtTheDuration(ratio: Double) {
        for velocity in Self.velocities {
            for seconds in Self.durations {
                let spring = SpringMotion.fitted(dampingRatio: ratio, velocity: velocity, seconds: seconds)
                #expect(spring.mass == 1)
                #expect(spring.velocity == velocity)
                #expect(abs(spring.dampingRatio / ratio - 1) <= 1e-12)
                let settle = SpringSolution(mass: spring.mass, stiffness: spring.stiffness, damping: spring.damping,
                                            velocity: velocity).settleSeconds(cap: .infinity)
                #expect(abs(settle / seconds - 1) <= 1e-9,
                        "ζ \(ratio), v \(velocity), \(seconds) s: settles at \(settle) s")
            }
        }
    }

    @Test("From rest the fit has a closed form: ω0 = ln(1/(ε·√(1 − ζ²)))/(ζ·D)")
    func fitFromRestHasAClosedForm() {
        for ratio in [0.1, 0.5, 0.9] {
            let spring = SpringMotion.fitted(dampingRatio: ratio, velocity: 0, seconds: 2)
            let expected = log(1 / (SpringMotion.settleThreshold * (1 - ratio * ratio).squareRoot())) / (ratio * 2)
            #expect(abs(spring.naturalFrequency / expected - 1) <= 1e-12)
        }
    }

    @Test("The curve runs the fitted spring over the requested duration")
    func curveRunsTheFittedSpring() throws {
        for (text, ratio, velocity) in [("spring(0.5)", 0.5, 0.0), ("spring(0.3,4)", 0.3, 4), ("spring(1)", 1, 0),
                                        ("spring(2.5,-1)", 2.5, -1)] {
            let curve = try TimingCurve.parse(text)
            #expect(curve == .uiKitSpring(dampingRatio: ratio, velocity: velocity))
            var state = CurveState()
            #expect(curve.prepare(requestedSeconds: 0.8, velocity: .nan, state: &state) == 0.8)
            let spring = SpringMotion.fitted(dampingRatio: ratio, velocity: velocity, seconds: 0.8)
            #expect(curve.value(at: 0, state: &state) == 0)
            #expect(curve.value(at: 1, state: &state) == 1)
            for k in 1..<1000 {
                let p = Double(k) / 1000
                let value = curve.value(at: p, state: &state)
                #expect(abs(value - spring.position(atSeconds: p * 0.8)) <= 1e-12)
                // Just before the end the envelope is still about ε: the final jump onto the
                // target is of that order.
                if p >= 0.999 { #expect(abs(value - 1) <= 1.05 * SpringMotion.settleThreshold) }
            }
        }
    }

    @Test("The message's velocity overrides the curve's own")
    func velocityOptionOverrides() throws {
        let curve = try TimingCurve.parse("spring(0.4)")
        var overridden = CurveState(), own = CurveState()
        _ = curve.prepare(requestedSeconds: 1, velocity: 3, state: &overridden)
        _ = TimingCurve.uiKitSpring(dampingRatio: 0.4, velocity: 3).prepare(requestedSeconds: 1, velocity: .nan, state: &own)
        for k in 0...100 {
            let p = Double(k) / 100
            #expect(curve.value(at: p, state: &overridden) == TimingCurve.uiKitSpring(dampingRatio: 0.4, velocity: 3).value(at: p, state: &own))
        }
    }

    @Test("The fit holds at the extremes of the accepted arguments")
    func fitHoldsAtTheExtremes() {
        for ratio in [1e-6, 0.01, 0.999999, 1.000001, 100, 1000] {
            for velocity in [0.0, 1e6, -1e6, 1e-9, -0.5] {
                for seconds in [1e-4, 0.02, 86_400] {
                    let spring = SpringMotion.fitted(dampingRatio: ratio, velocity: velocity, seconds: seconds)
                    let settle = SpringSolution(mass: 1, stiffness: spring.stiffness, damping: spring.damping,
                                                velocity: velocity).settleSeconds(cap: .infinity)
                    #expect(spring.stiffness.isFinite && spring.stiffness > 0)
                    #expect(abs(settle / seconds - 1) <= 1e-8, "ζ \(ratio), v \(velocity), \(seconds) s: \(settle)")
                    let curve = TimingCurve.uiKitSpring(dampingRatio: ratio, velocity: velocity)
                    var state = CurveState()
                    _ = curve.prepare(requestedSeconds: seconds, velocity: .nan, state: &state)
                    for k in 0...100 {
                        #expect(curve.value(at: Double(k) / 100, state: &state).isFinite)
                    }
                }
            }
        }
    }

    @Test("A zero duration leaves nothing to fit")
    func zeroDurationIsHarmless() {
        let curve = TimingCurve.uiKitSpring(dampingRatio: 0.5, velocity: 0)
        var state = CurveState()
        #expect(curve.prepare(requestedSeconds: 0, velocity: .nan, state: &state) == 0)
        #expect(curve.value(at: 0, state: &state) == 0)
        #expect(curve.value(at: 1, state: &state) == 1)
        #expect(curve.value(at: 0.5, state: &state).isFinite)
    }
}
