/// CSS step easing, `steps(n, <step-position>)`, per CSS Easing Functions Level 1 §2.3
/// ("calculate the output of a step easing function"), with the before flag unset.
@usableFromInline
enum Steps {
    /// Realtime-safe. CSS: step = ⌊p·n⌋, +1 for jump-start and jump-both; jumps = n (start,
    /// end), n − 1 (none), n + 1 (both); step is clamped to [0, jumps]; output step / jumps.
    ///
    /// Progress reaching a step boundary from below by no more than a relative 1e-12 counts as
    /// on it, so that progress k/N computed in floating point steps on the sample exact
    /// arithmetic would (otherwise 3/5·5 could floor to 2).
    @inlinable @_noLocks
    static func value(at progress: Double, count: Int, position: StepPosition) -> Double {
        let p = progress > 0 ? (progress < 1 ? progress : 1) : 0
        let n = Double(count)
        let scaled = p * n
        // Non-negative, so truncation is the floor.
        var step = Double(Int(scaled + scaled * 1e-12))
        let jumps: Double
        switch position {
        case .jumpStart: step += 1; jumps = n
        case .jumpEnd: jumps = n
        case .jumpNone: jumps = n - 1
        case .jumpBoth: step += 1; jumps = n + 1
        }
        if step > jumps { step = jumps }
        return step / jumps
    }
}
