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
    ///
    /// The denominator, expm1(c) or expm1(−c), depends on c only: it is computed once and kept
    /// in `state` (`curvatureDenominator`) with the c it belongs to (`curvatureC`, 0 when none:
    /// c = 0 never gets here), which saves one `expm1` per sample and gives the very same
    /// quotient. Those two words are the springs' otherwise; a state serves one curve at a time.
    @inlinable @_noLocks
    static func value(at x: Double, curvature c: Double, state: inout CurveState) -> Double {
        if abs(c) < linearThreshold { return x }
        if state.curvatureC != c {
            state.curvatureC = c
            state.curvatureDenominator = c < 0 ? Math.expm1(c) : Math.expm1(-c)
        }
        if c < 0 { return Math.expm1(c * x) / state.curvatureDenominator }
        return Math.exp(c * (x - 1)) * (Math.expm1(-c * x) / state.curvatureDenominator)
    }
}
