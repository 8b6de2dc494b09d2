/// A damped spring released at 0 toward a target at 1, in normalised units (distance 1):
///
///     m·x″ + c·x′ + k·(x − 1) = 0,   x(0) = 0,   x′(0) = velocity
///
/// `velocity` is in UIKit's unit: 1.0 is the whole distance per second, positive toward the
/// target. docs/CURVES.md derives every formula used here.
public struct SpringMotion: Sendable, BitwiseCopyable, Equatable {
    public var mass: Double
    public var stiffness: Double
    public var damping: Double
    public var velocity: Double

    @inlinable
    public init(mass: Double, stiffness: Double, damping: Double, velocity: Double = 0) {
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.velocity = velocity
    }

    /// A spring has settled once the envelope of its remaining motion is below this fraction
    /// of the distance it travels (SPEC §4.2).
    @inlinable public static var settleThreshold: Double { 1e-4 }
    /// A spring that has not settled after this many seconds (no or almost no damping) stops
    /// there and sits on the target.
    @inlinable public static var maximumSettleSeconds: Double { @_noLocks get { 60 } }

    /// ζ = c / (2·√(k·m)).
    @inlinable public var dampingRatio: Double { damping / (2 * Math.sqrt(stiffness * mass)) }
    /// ω0 = √(k/m), rad/s.
    @inlinable public var naturalFrequency: Double { Math.sqrt(stiffness / mass) }

    /// Realtime-safe. Seconds until the envelope of the remaining motion falls to
    /// `settleThreshold`, at most `maximumSettleSeconds`.
    @inlinable @_noLocks
    public func settleSeconds() -> Double {
        SpringSolution(mass: mass, stiffness: stiffness, damping: damping, velocity: velocity)
            .settleSeconds(cap: SpringMotion.maximumSettleSeconds)
    }

    /// Realtime-safe. x(t) by the closed form (not snapped to the target after settling).
    @inlinable @_noLocks
    public func position(atSeconds seconds: Double) -> Double {
        var state = CurveState()
        SpringSolution(mass: mass, stiffness: stiffness, damping: damping, velocity: velocity)
            .store(in: &state, seconds: 1)
        return SpringSolution.value(atSeconds: seconds, state: state)
    }

    /// Realtime-safe. UIKit's spring: mass 1, damping ratio ζ, initial velocity `velocity`,
    /// and the natural frequency ω0 chosen so that the spring settles (by the criterion of
    /// `settleSeconds`, uncapped) exactly `seconds` after release. Stiffness ω0², damping 2ζω0.
    ///
    /// Scaling: with ω0 = 1 the settle time τ depends only on ζ and u = v/ω0, and the real
    /// one is τ(ζ, v/ω0)/ω0. With v = 0 that gives ω0 = τ(ζ, 0)/seconds directly; otherwise
    /// ln τ(ζ, v·e^(−y)) − y = ln(seconds) is solved for y = ln ω0 (bracketed, then Illinois).
    @inlinable @_noLocks
    public static func fitted(dampingRatio zeta: Double, velocity v: Double, seconds: Double) -> SpringMotion {
        let tau0 = dimensionlessSettle(dampingRatio: zeta, velocity: 0)
        var omega0 = tau0 / seconds
        if v != 0 {
            let logSeconds = Math.log(seconds)
            var ya = Math.log(omega0)
            var fa = fitResidual(ya, dampingRatio: zeta, velocity: v, logSeconds: logSeconds)
            var y = ya
            if fa != 0 {
                // F > 0: the spring settles too late, stiffen it (y up), and the other way.
                let direction: Double = fa > 0 ? 1 : -1
                var yb = ya
                var fb = fa
                var stride = 0.25
                for _ in 0..<200 {
                    yb = ya + direction * stride
                    fb = fitResidual(yb, dampingRatio: zeta, velocity: v, logSeconds: logSeconds)
                    if fb == 0 || (fb > 0) != (fa > 0) { break }
                    ya = yb
                    fa = fb
                    stride *= 2
                }
                y = yb
                if fb != 0 {
                    // Illinois (modified regula falsi) on [ya, yb], F(ya)·F(yb) < 0.
                    var side = 0
                    for _ in 0..<100 {
                        y = (fa * yb - fb * ya) / (fa - fb)
                        let fy = fitResidual(y, dampingRatio: zeta, velocity: v, logSeconds: logSeconds)
                        if abs(fy) <= 1e-14 || abs(yb - ya) <= 1e-14 * max(1, abs(y)) { break }
                        if (fy > 0) == (fb > 0) {
                            yb = y
                            fb = fy
                            if side == -1 { fa *= 0.5 }
                            side = -1
                        } else {
                            ya = y
                            fa = fy
                            if side == 1 { fb *= 0.5 }
                            side = 1
                        }
                    }
                }
            }
            omega0 = Math.exp(y)
        }
        return SpringMotion(mass: 1, stiffness: omega0 * omega0, damping: 2 * zeta * omega0, velocity: v)
    }

    /// τ(ζ, u): settle time of the spring with ω0 = 1 (mass 1, stiffness 1, damping 2ζ).
    @inlinable @_noLocks
    static func dimensionlessSettle(dampingRatio zeta: Double, velocity u: Double) -> Double {
        SpringSolution(mass: 1, stiffness: 1, damping: 2 * zeta, velocity: u).settleSeconds(cap: .infinity)
    }

    /// F(y) = ln τ(ζ, v·e^(−y)) − y − ln(seconds): zero when ω0 = e^y settles in `seconds`.
    @inlinable @_noLocks
    static func fitResidual(_ y: Double, dampingRatio zeta: Double, velocity v: Double,
                            logSeconds: Double) -> Double {
        Math.log(dimensionlessSettle(dampingRatio: zeta, velocity: v * Math.exp(-y))) - y - logSeconds
    }
}

@usableFromInline
enum SpringRegime: UInt8, Sendable, BitwiseCopyable {
    case under, critical, over
}

/// The closed form of a spring, in terms of the remaining distance e(t) = 1 − x(t):
///
///     e(t) = e^(−σt) · (C(t) + a·S(t)),   σ = c/2m,   a = σ − v0,   ω0 = √(k/m),   ζ = σ/ω0
///
///     under-damped (ζ < 1), ωd = ω0·√(1 − ζ²):   C = cos ωd·t,   S = sin(ωd·t)/ωd
///     critically damped (ζ = 1):                  C = 1,          S = t
///     over-damped (ζ > 1), γ = ω0·√(ζ² − 1):     C = cosh γt,    S = sinh(γt)/γ
///
/// The over-damped form is evaluated as e^(−(σ−γ)t)·(½(2 + μ) − (a/2γ)·μ), μ = expm1(−2γt),
/// σ − γ = ω0²/(σ + γ): no overflow, and no cancellation as γ → 0.
@usableFromInline
struct SpringSolution: BitwiseCopyable {
    @usableFromInline var regime: SpringRegime
    @usableFromInline var sigma: Double
    @usableFromInline var omega0Squared: Double
    /// ωd (under-damped), γ (over-damped), 0 (critical).
    @usableFromInline var omega: Double
    /// a = σ − v0.
    @usableFromInline var a: Double

    @inlinable @_noLocks
    init(mass: Double, stiffness: Double, damping: Double, velocity: Double) {
        let omega0Squared = stiffness / mass
        let omega0 = Math.sqrt(omega0Squared)
        let sigma = damping / (2 * mass)
        let zeta = sigma / omega0
        self.sigma = sigma
        self.omega0Squared = omega0Squared
        self.a = sigma - velocity
        if zeta < 1 {
            regime = .under
            omega = omega0 * Math.sqrt((1 - zeta) * (1 + zeta))
        } else if zeta == 1 {
            regime = .critical
            omega = 0
        } else {
            regime = .over
            omega = omega0 * Math.sqrt((zeta - 1) * (zeta + 1))
        }
    }

    /// Realtime-safe. Resolves the per-sample constants into `state`; progress 1 is `seconds`.
    @inlinable @_noLocks
    func store(in state: inout CurveState, seconds: Double) {
        state.springSpanSeconds = seconds
        state.regime = regime
        switch regime {
        case .under:
            state.springDecayRate = sigma
            state.springAngularFrequency = omega
            state.springCoefficient = a / omega
        case .critical:
            state.springDecayRate = sigma
            state.springAngularFrequency = 0
            state.springCoefficient = a
        case .over:
            state.springDecayRate = omega0Squared / (sigma + omega)
            state.springAngularFrequency = 2 * omega
            state.springCoefficient = a / (2 * omega)
        }
    }

    /// Realtime-safe. x(t) = 1 − e(t), stepping from the previous sample when `t` is one
    /// step on from it: the exponentials and the rotation of the closed form advance by one
    /// multiplication per sample instead of three libm calls. The closed form is taken again
    /// every 256 steps and whenever `t` is anywhere else (the first samples, a repeat, an
    /// autoreverse, random access), so rounding never builds up (differences ~1e-14).
    @inlinable @_noLocks
    static func value(atSeconds t: Double, state: inout CurveState) -> Double {
        let step = t - state.springLastSeconds
        let tolerance = 1e-9 * max(1, abs(t))
        if state.springLastSeconds >= 0 && state.stepsSinceExact < 256 && state.stepSeconds != 0
            && abs(step - state.stepSeconds) <= tolerance {
            state.stepsSinceExact &+= 1
            state.springLastSeconds = t
            switch state.regime {
            case .under:
                // (a + ib)·(stepA + i·stepB)
                let a = state.a * state.stepA - state.b * state.stepB
                let b = state.a * state.stepB + state.b * state.stepA
                state.a = a
                state.b = b
                return 1 - (a + state.springCoefficient * b)
            case .critical:
                state.a *= state.stepA
                return 1 - state.a * (1 + state.springCoefficient * t)
            case .over:
                state.a *= state.stepA
                state.b *= state.stepB
                let mu = state.b - 1
                return 1 - state.a * (0.5 * (2 + mu) - state.springCoefficient * mu)
            }
        }
        // Closed form, and the state to step on from.
        if state.springLastSeconds >= 0 && step != 0 && abs(step - state.stepSeconds) > tolerance {
            state.stepSeconds = step
            switch state.regime {
            case .under:
                let damping = Math.exp(-state.springDecayRate * step)
                state.stepA = damping * Math.cos(state.springAngularFrequency * step)
                state.stepB = damping * Math.sin(state.springAngularFrequency * step)
            case .critical:
                state.stepA = Math.exp(-state.springDecayRate * step)
            case .over:
                state.stepA = Math.exp(-state.springDecayRate * step)
                state.stepB = Math.exp(-state.springAngularFrequency * step)
            }
        }
        state.springLastSeconds = t
        state.stepsSinceExact = 0
        switch state.regime {
        case .under:
            let damping = Math.exp(-state.springDecayRate * t)
            let phase = state.springAngularFrequency * t
            state.a = damping * Math.cos(phase)
            state.b = damping * Math.sin(phase)
            return 1 - (state.a + state.springCoefficient * state.b)
        case .critical:
            state.a = Math.exp(-state.springDecayRate * t)
            return 1 - state.a * (1 + state.springCoefficient * t)
        case .over:
            let mu = Math.expm1(-state.springAngularFrequency * t)
            state.a = Math.exp(-state.springDecayRate * t)
            state.b = 1 + mu
            return 1 - state.a * (0.5 * (2 + mu) - state.springCoefficient * mu)
        }
    }

    /// Realtime-safe. x(t) = 1 − e(t) from the constants in `state`, in closed form.
    @inlinable @_noLocks
    static func value(atSeconds t: Double, state: CurveState) -> Double {
        let remaining: Double
        switch state.regime {
        case .under:
            let phase = state.springAngularFrequency * t
            remaining = Math.exp(-state.springDecayRate * t) * (Math.cos(phase) + state.springCoefficient * Math.sin(phase))
        case .critical:
            remaining = Math.exp(-state.springDecayRate * t) * (1 + state.springCoefficient * t)
        case .over:
            let mu = Math.expm1(-state.springAngularFrequency * t)
            remaining = Math.exp(-state.springDecayRate * t) * (0.5 * (2 + mu) - state.springCoefficient * mu)
        }
        return 1 - remaining
    }

    /// Realtime-safe. The settle time: the t at which the envelope E(t) of the remaining
    /// motion falls to ε = `SpringMotion.settleThreshold` for good, capped at `cap`.
    ///
    /// With b = |a| (so that E(t) ≥ |e(t')| for every t' ≥ t once E is decreasing):
    ///
    ///     under-damped:  E(t) = e^(−σt) · min(√(1 + (a/ωd)²), 1 + b·t)
    ///     critical:      E(t) = e^(−σt) · (1 + b·t)
    ///     over-damped:   E(t) = e^(−σt) · (cosh γt + b·sinh(γt)/γ)
    ///
    /// Each is continuous in the parameters across ζ = 1. {t : E(t) ≥ ε} is an interval
    /// [0, T]; T is returned. The under-damped exponential branch has the closed form
    /// T = ln(√(1 + (a/ωd)²)/ε)/σ, used whenever the linear branch is not lower there; the
    /// rest is solved for ln E(t) = ln ε by Newton's method inside a bracket (bisection when a
    /// step leaves it), a bounded loop on one scalar equation, not an iteration over samples.
    @inlinable @_noLocks
    func settleSeconds(cap: Double) -> Double {
        guard sigma > 0 else { return cap }   // undamped: never settles
        let logInverseThreshold = -Math.log(SpringMotion.settleThreshold)
        let b = abs(a)
        if regime == .under {
            let q = b / omega
            let logAmplitude = q > 1 ? Math.log(q) + 0.5 * Math.log1p(1 / (q * q)) : 0.5 * Math.log1p(q * q)
            let exponentialSettle = (logAmplitude + logInverseThreshold) / sigma
            if exponentialSettle.isFinite && Math.log1p(b * exponentialSettle) >= logAmplitude {
                return min(exponentialSettle, cap)
            }
        }
        return solveSettle(cap: cap, logInverseThreshold: logInverseThreshold, b: b)
    }

    /// ln(E(t)/ε) and its derivative, for the critical / linear-branch form and the
    /// over-damped form.
    @inlinable @_noLocks
    func logEnvelopeMargin(_ t: Double, logInverseThreshold: Double, b: Double) -> (value: Double, slope: Double) {
        if regime == .over {
            let gamma = omega
            let mu = Math.expm1(-2 * gamma * t)
            let slowRate = omega0Squared / (sigma + gamma)
            let inner = 0.5 * (2 + mu) - (b / (2 * gamma)) * mu
            let tanhOverGamma = (-mu / (2 + mu)) / gamma
            let slope = -sigma + (gamma * gamma * tanhOverGamma + b) / (1 + b * tanhOverGamma)
            return (-slowRate * t + Math.log(inner) + logInverseThreshold, slope)
        }
        return (Math.log1p(b * t) - sigma * t + logInverseThreshold, b / (1 + b * t) - sigma)
    }

    @inlinable @_noLocks
    func solveSettle(cap: Double, logInverseThreshold: Double, b: Double) -> Double {
        // E(t) ≥ e^(−σt) in every regime, so E(L/σ) ≥ ε: a lower bound of T.
        var lo = logInverseThreshold / sigma
        guard lo < cap else { return cap }
        var hi = lo
        var bracketed = false
        for _ in 0..<200 {
            hi = min(2 * hi, cap)
            if logEnvelopeMargin(hi, logInverseThreshold: logInverseThreshold, b: b).value <= 0 {
                bracketed = true
                break
            }
            lo = hi
            if hi >= cap { return cap }
        }
        guard bracketed else { return cap }
        // ln E is concave for the linear branch and for over-damped with b > γ (Newton from the
        // right converges monotonically), convex for over-damped with b ≤ γ (from the left).
        var t = (regime == .over && b <= omega) ? lo : hi
        for _ in 0..<100 {
            let (h, slope) = logEnvelopeMargin(t, logInverseThreshold: logInverseThreshold, b: b)
            if h == 0 { return t }
            if h > 0 { lo = t } else { hi = t }
            let next = t - h / slope
            if next > lo && next < hi {
                if abs(next - t) <= 1e-14 * t { return next }
                t = next
            } else {
                t = 0.5 * (lo + hi)
                if hi - lo <= 1e-15 * hi { return t }
            }
        }
        return t
    }
}
