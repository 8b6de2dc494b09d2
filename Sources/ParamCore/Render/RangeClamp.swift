/// The range clamp of the render loops with the range in registers, one frame or eight at
/// once: from `high` up, `high`; from `low` up, the value; else `low` (NaN included), as
/// `ModulationLayer.clamp`. Inlined where it is used, so each loop compiles as if written out.
@usableFromInline
enum RangeClamp {
    /// Realtime-safe. One value.
    @_noLocks @inlinable @inline(__always)
    static func one(_ v: Double, _ low: Double, _ high: Double) -> Double {
        v >= high ? high : (v >= low ? v : low)
    }

    /// Realtime-safe. Eight values, stored at `out` (unaligned).
    @_noLocks @inlinable @inline(__always)
    static func store8(_ v: SIMD8<Double>, _ low: Double, _ high: Double, to out: UnsafeMutablePointer<Double>) {
        var clamped = SIMD8(repeating: low)
        clamped.replace(with: v, where: v .>= low)
        clamped.replace(with: high, where: v .>= high)
        UnsafeMutableRawPointer(out).storeBytes(of: clamped, as: SIMD8<Double>.self)
    }
}
