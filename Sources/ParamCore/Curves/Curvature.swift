/// SuperCollider's numeric curvature (`Env` curve numbers, `lincurve`):
/// f(x) = (1 − e^(c·x)) / (1 − e^c), and f(x) = x when |c| < 0.001.
/// Positive c starts slowly, negative c starts fast.
@usableFromInline
enum Curvature {
    /// Below this |c| the curve is linear (SuperCollider's own threshold).
    @inlinable static var linearThreshold: Double { 0.001 }

    /// Realtime-safe. Evaluated without overflow for any c: for c < 0 as
    /// expm1(c·x) / expm1(c); for c > 0 as e^(c·(x − 1)) · expm1(−c·x) / expm1(−c), the same
    /// quantity with numerator and denominator divided by e^c.
    @inlinable @_noLocks
    static func value(at x: Double, curvature c: Double) -> Double {
        if abs(c) < linearThreshold { return x }
        if c < 0 { return Math.expm1(c * x) / Math.expm1(c) }
        return Math.exp(c * (x - 1)) * (Math.expm1(-c * x) / Math.expm1(-c))
    }
}
