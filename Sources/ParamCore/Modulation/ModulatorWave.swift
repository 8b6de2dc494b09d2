/// The modulators' wave kernels: each shape of `ModulatorShape` as a function of the position
/// in the cycle φ ∈ [0, 1), bipolar (−1…1). Sine and the random shape's cosine interpolation go
/// through SignalMath's bounded-range kernels (no libm call), the rest are a compare and a
/// multiply-add. `ModulatorWaveTests` holds them to the analytic values.
public enum ModulatorWave {
    @usableFromInline static var twoPi: Double { 6.28318530717958647693 }
    @usableFromInline static var halfPi: Double { 1.57079632679489661923 }

    /// Realtime-safe. sin 2πφ for φ ∈ [0, 1) (SignalMath's tone sine; libm outside).
    @_noLocks @inline(__always)
    public static func sine(_ phase: Double) -> Double { SignalMath.sinOfPhase(twoPi * phase) }

    /// Realtime-safe. 0 at φ = 0, +1 at ¼, −1 at ¾, straight lines between.
    @_noLocks @inline(__always)
    public static func triangle(_ phase: Double) -> Double {
        if phase < 0.25 { return 4 * phase }
        if phase < 0.75 { return 2 - 4 * phase }
        return 4 * phase - 4
    }

    /// Realtime-safe. Rises from 0 at φ = 0 to +1 at ½, drops to −1 and rises back to 0.
    @_noLocks @inline(__always)
    public static func saw(_ phase: Double) -> Double { phase < 0.5 ? 2 * phase : 2 * phase - 2 }

    /// Realtime-safe. +1 for the first half of the cycle, −1 for the second.
    @_noLocks @inline(__always)
    public static func square(_ phase: Double) -> Double { phase < 0.5 ? 1 : -1 }

    /// Realtime-safe. From `from` (this cycle's point) to `to` (the next's) along
    /// (1 − cos πφ)/2 = sin²(πφ/2), the sine from SignalMath's quarter-turn kernel.
    @_noLocks @inline(__always)
    public static func random(_ phase: Double, from: Double, to: Double) -> Double {
        let s = SignalMath.cosSinOfQuarter(halfPi * phase).sin
        return from + (to - from) * (s * s)
    }

    /// Realtime-safe. `shape` at `phase`; `from` and `to` are this cycle's and the next cycle's
    /// random values (read by `random` and `sh` only).
    @_noLocks @inline(__always)
    public static func value(_ shape: ModulatorShape, phase: Double, from: Double, to: Double) -> Double {
        switch shape {
        case .sine: return sine(phase)
        case .triangle: return triangle(phase)
        case .saw: return saw(phase)
        case .square: return square(phase)
        case .random: return random(phase, from: from, to: to)
        case .sh: return from
        }
    }
}
