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
    /// A sample's cost is the chain of dependent operations from one t to the next, kept
    /// short: a guess extrapolated quadratically from the last three solutions (`t`, `d`,
    /// `dd`); one chord step with 1/x′ computed a sample ahead, accepted only when its error
    /// bound |step·(1 − x′(previous guess)/x′(guess))| is below 1e-13 and the step below 1e-7;
    /// the next guess straight from the residual, g′ = (g + d + 2·dd) − 3·step. Anything else
    /// (first samples, a jump, an autoreverse's turn, a flat spot, an end) falls back to
    /// `solve`, Newton's method guarded by a bracket (docs/CURVES.md).
    @inlinable @_noLocks @inline(__always)
    static func value(at progress: Double, x1: Double, y1: Double, x2: Double, y2: Double,
                      state: inout CurveState) -> Double {
        // Power-basis coefficients: x(t) = ((ax·t + bx)·t + cx)·t.
        let cx = 3 * x1
        let bx = 3 * (x2 - x1) - cx
        let ax = 1 - cx - bx
        let cy = 3 * y1
        let by = 3 * (y2 - y1) - cy
        let ay = 1 - cy - by

        // state.t: the last solution, with its differences and the guess and 1/x′ for this
        // sample (see `CurveState`'s Bézier accessors).
        let last = state.t
        let history = state.bezierHistoryCount
        let g = state.bezierGuess
        let inverse = state.bezierInverseSlope
        if history >= 3 && g > 0 && g < 1 && inverse > 0 {
            let g2 = g * g
            let residual = (cx * g - progress) + (ax * g + bx) * g2
            let step = residual * inverse
            let slope = (3 * ax * g + 2 * bx) * g + cx
            let t = g - step
            // The error left is step·(1 − 1/k) with k = x′(g)/x′(previous guess); for
            // |1 − k| < 1/2 that is at most 2·|step·(1 − k)|.
            let k = slope * inverse
            if abs(step) < 1e-7 && abs(1 - k) < 0.5 && abs(step * (1 - k)) < 5e-14 && t > 0 && t < 1 {
                let d = state.bezierFirstDifference
                let dd = state.bezierSecondDifference
                state.bezierGuess = (g + d + 2 * dd) - step * 3
                state.t = t
                state.bezierFirstDifference = t - last
                state.bezierSecondDifference = (t - last) - d
                state.bezierInverseSlope = 1 / slope
                return ((ay * t + by) * t + cy) * t
            }
        }
        let t = solve(progress, ax: ax, bx: bx, cx: cx,
                      start: history >= 1 && g > 0 && g < 1 ? g : (last > 0 && last < 1 ? last : progress))
        // Record t in the differences, and the guess and slope for the next sample.
        let d = history >= 1 ? t - last : 0
        let dd = history >= 2 ? d - state.bezierFirstDifference : 0
        let next = t + d + dd
        let slope = (3 * ax * next + 2 * bx) * next + cx
        state.t = t
        state.bezierFirstDifference = d
        state.bezierSecondDifference = dd
        state.bezierGuess = next
        state.bezierInverseSlope = slope > 0 ? 1 / slope : 0
        state.bezierHistoryCount = min(history + 1, 3)
        return ((ay * t + by) * t + cy) * t
    }

    /// Realtime-safe. The t in (0, 1) where x(t) = `progress`: Newton's method from `start`,
    /// guarded by a bracket [lo, hi] that every evaluation narrows; a step that leaves the
    /// bracket, or meets a flat spot, is replaced by bisection, so it converges from any start.
    /// After a Newton step shorter than 1e-7 in t, the error left in x is below
    /// max|x″|/2 · 1e-14 < 1e-13, so the step is taken without evaluating again.
    @inlinable @_noLocks
    static func solve(_ progress: Double, ax: Double, bx: Double, cx: Double, start: Double) -> Double {
        var lo = 0.0
        var hi = 1.0
        var t = start
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
        return t
    }
}
