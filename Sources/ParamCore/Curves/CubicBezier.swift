/// Cubic Bézier timing functions (CSS `cubic-bezier`, Core Animation's `CAMediaTimingFunction`).
///
/// The curve is B(t) = 3(1−t)²t·P1 + 3(1−t)t²·P2 + t³ for t in [0, 1], with P0 = (0,0) and
/// P3 = (1,1). For progress x the value is y(t) where x(t) = x. With x1, x2 in [0, 1], x(t) is
/// non-decreasing, so the solution is unique.
@usableFromInline
enum CubicBezier {
    /// Accept the solution when |x(t) − progress| is below this.
    @inlinable static var tolerance: Double { 1e-12 }

    /// Realtime-safe. y at the t where x(t) = `progress`, for progress in (0, 1).
    ///
    /// Newton's method warm-started from the previous samples' solutions (`t` the last,
    /// `previous` the one before, 0 when none; both updated), guarded by a bracket [lo, hi] that
    /// every evaluation narrows: a step that leaves the bracket, or meets a flat spot, is
    /// replaced by bisection, so the solver converges from any start, whatever order the
    /// samples come in. The start is the linear extrapolation 2·t − previous when it lies inside
    /// (0, 1), else t: progress moving by a steady step moves t by a nearly steady step, so the
    /// extrapolation is off by O(step²) and one evaluation usually suffices (two from t alone).
    /// After a Newton step shorter than 1e-7 in t, the error left in x is below
    /// max|x″|/2 · 1e-14 < 1e-13, so the step is taken without evaluating again.
    @inlinable @_noLocks
    static func value(at progress: Double, x1: Double, y1: Double, x2: Double, y2: Double,
                      t warm: inout Double, previous: inout Double) -> Double {
        // Power-basis coefficients: x(t) = ((ax·t + bx)·t + cx)·t.
        let cx = 3 * x1
        let bx = 3 * (x2 - x1) - cx
        let ax = 1 - cx - bx
        let cy = 3 * y1
        let by = 3 * (y2 - y1) - cy
        let ay = 1 - cy - by

        var lo = 0.0
        var hi = 1.0
        var t = (warm > 0 && warm < 1) ? warm : progress
        if warm > 0 && warm < 1 && previous > 0 && previous < 1 {
            let guess = warm + (warm - previous)
            if guess > 0 && guess < 1 { t = guess }
        }
        for _ in 0..<100 {
            let residual = ((ax * t + bx) * t + cx) * t - progress
            if abs(residual) <= tolerance { break }
            if residual > 0 { hi = t } else { lo = t }
            let slope = (3 * ax * t + 2 * bx) * t + cx
            let step = residual / slope
            let next = t - step
            if next > lo && next < hi {
                t = next
                if abs(step) < 1e-7 { break }
            } else {
                t = 0.5 * (lo + hi)
                if hi - lo <= 1e-16 { break }
            }
        }
        previous = warm
        warm = t
        return ((ay * t + by) * t + cy) * t
    }
}
