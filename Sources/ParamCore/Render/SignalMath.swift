/// The two trigonometric functions of SPEC §2's signal path, evaluated inline for the ranges
/// the path gives them: the tone's `sin` of a phase in [0, 2π), and the equal-power pan's
/// `cos` and `sin` of an angle in [0, π/2]. Each is a quadrant reduction and fdlibm's kernels
/// (`__kernel_sin`, `__kernel_cos`: minimax polynomials on [−π/4, π/4], error below one ulp),
/// in plain multiplies and adds (no FMA, so the same bits on every x86-64 and arm64).
///
/// Why not libm's `sin` and `sincos`: they are general (any argument, huge ones included) and
/// each is a call into another library whose code and tables the JACK thread brings back into
/// cache every period; they were about half of a ramping period's time in the callback
/// (docs/PERFORMANCE.md, "The signal path's sine"). Here, with the argument's range known, the
/// reduction is one multiply and two Cody-Waite steps. `SignalMathTests` holds both to libm
/// within one ulp over the whole range. Outside the range (a phase a caller did not wrap, NaN)
/// they fall back to libm.
public enum SignalMath {
    // π/2 in two parts (fdlibm's pio2_1, pio2_1t): the first has 33 significant bits, so n·it
    // is exact for the small n here, and x − n·it is exact near a multiple of π/2.
    @usableFromInline static var halfPiHigh: Double { 1.57079632673412561417e+00 }
    @usableFromInline static var halfPiLow: Double { 6.07710050650619224932e-11 }
    @usableFromInline static var twoOverPi: Double { 6.36619772367581382433e-01 }
    /// 1.5·2⁵²: added to a double below 2⁵¹ in magnitude, it rounds it to an integer that then
    /// sits in the low bits of the sum's pattern (no conversion instruction, no range check).
    @usableFromInline static var roundingShift: Double { 6755399441055744.0 }
    @usableFromInline static var quarterPi: Double { 7.85398163397448278999e-01 }

    /// sin(x) for 0 ≤ x < 8 (a phase wrapped to [0, 2π) with room to spare); libm otherwise.
    @_noLocks @inline(__always)
    public static func sinOfPhase(_ x: Double) -> Double {
        guard x >= 0, x < 8 else { return Math.sin(x) }  // NaN fails the first test
        let shifted = x * twoOverPi + roundingShift
        let q = shifted - roundingShift  // the nearest quadrant, 0…5
        let quadrant = shifted.bitPattern & 3
        let r = (x - q * halfPiHigh) - q * halfPiLow  // in [−π/4, π/4]
        let s = quadrant & 1 == 0 ? kernelSin(r) : kernelCos(r)
        return quadrant & 2 == 0 ? s : -s
    }

    /// (cos a, sin a) for 0 ≤ a ≤ π/2 (the pan law's angle, (pan + 1)·π/4); libm otherwise.
    /// At a = 0 exactly (1, 0); at the double nearest π/2, (6.12e−17, 1), libm's to 10⁻²⁵.
    @_noLocks @inline(__always)
    public static func cosSinOfQuarter(_ a: Double) -> (cos: Double, sin: Double) {
        guard a >= 0, a <= 1.5707963267948966 else { return Math.cosSin(a) }
        if a <= quarterPi { return (kernelCos(a), kernelSin(a)) }
        let r = (halfPiHigh - a) + halfPiLow  // π/2 − a, in [0, π/4)
        return (kernelSin(r), kernelCos(r))
    }

    /// fdlibm's `__kernel_sin(x, 0, 0)`: sin x for |x| ≤ π/4.
    @_noLocks @inline(__always)
    static func kernelSin(_ x: Double) -> Double {
        let z = x * x
        let v = z * x
        let r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06
            + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))
        return x + v * (-1.66666666666666324348e-01 + z * r)
    }

    /// fdlibm's `__kernel_cos(x, 0)`: cos x for |x| ≤ π/4, 1 − z/2 taken apart so that its
    /// rounding error is added back.
    @_noLocks @inline(__always)
    static func kernelCos(_ x: Double) -> Double {
        let z = x * x
        let r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (2.48015872894767294178e-05
            + z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))))
        let hz = 0.5 * z
        let w = 1.0 - hz
        return w + (((1.0 - w) - hz) + z * r)
    }
}

extension SignalMath {
    /// Realtime-safe. `x.truncatingRemainder(dividingBy: y)` (C's `fmod`) for 0 ≤ x < 2²⁰·y and
    /// y ≥ 2⁻⁹⁰⁰, to the bit, without a libm call (x86-64's baseline has no FMA, so `fmod` and
    /// `addingProduct` are calls into libm, a cold page each period). The quotient from the
    /// rounded division can be one off at a boundary, which the sign of x − n·y shows.
    /// Anything else goes to `fmod`.
    @_noLocks @inline(__always)
    static func remainder(_ x: Double, _ y: Double) -> Double {
        guard x >= 0, y >= 0x1p-900, x < 1_048_576 * y else { return x.truncatingRemainder(dividingBy: y) }
        if x < y { return x }
        var n = Double(Int64(x / y))  // truncated: 0 < x / y < 2²⁰ + 1
        var r = productRemainder(x, n, y)
        if r < 0 {
            n -= 1
            r = productRemainder(x, n, y)
        } else if r >= y {
            n += 1
            r = productRemainder(x, n, y)
        }
        return r
    }

    /// x − n·y rounded once (what `x.addingProduct(-n, y)` gives), for an integer 0 ≤ n < 2²¹
    /// with n·y within a few y of x ≥ y. y = yh + yl with yh its top 26 significant bits and
    /// yl the other 27: n·yh (47 bits) and n·yl (48 bits) are exact; x − n·yh is exact (it is
    /// less than 2y, on a grid no finer than x's or y's ulp); so the last subtraction is the
    /// only rounding. `LeanPathTests` holds it to `fma` and `fmod` bit for bit.
    @_noLocks @inline(__always)
    static func productRemainder(_ x: Double, _ n: Double, _ y: Double) -> Double {
        let yh = Double(bitPattern: y.bitPattern & ~((1 << 27) - 1))
        let yl = y - yh
        return (x - n * yh) - n * yl
    }
}
