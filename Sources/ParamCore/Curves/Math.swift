// libm, wrapped for the audio path. The C functions come through Memory/CLibrary.swift, the
// one file of ParamCore that imports the C library. Each call is wrapped in
// `_unsafePerformance` (the @_noLocks checker cannot see into C); libm's functions neither
// allocate nor lock.

/// Realtime-safe math functions over `Double`.
public enum Math {
    /// Whether |x| < |limit| (false for NaN), compared on the bit patterns shifted left by one,
    /// which drops the sign: for doubles of the same sign the patterns order as the values
    /// do, and NaN's lies above infinity's. Swift's `magnitude` (and LLVM's reading of a
    /// masked bit pattern as `fabs`) compiles to `andpd` with a 16-byte mask from
    /// `.rodata.cst16`, a page of constants the audio thread would touch each period for that
    /// alone: it showed as the most expensive instruction of `ClockOffsetModel.offset` in the
    /// JACK thread's profile, a first touch after the thread slept.
    @_noLocks @inline(__always) public static func magnitudeIsBelow(_ x: Double, _ limit: Double) -> Bool {
        x.bitPattern &<< 1 < limit.bitPattern &<< 1
    }

    @_noLocks @inline(__always) public static func sin(_ x: Double) -> Double {
        _unsafePerformance { libmSin(x) }
    }
    @_noLocks @inline(__always) public static func cos(_ x: Double) -> Double {
        _unsafePerformance { libmCos(x) }
    }
    /// (cos x, sin x) in one call where libm has `sincos` (glibc: the same argument reduction
    /// and polynomials as `sin` and `cos`, so the same values; one reduction instead of two).
    @_noLocks @inline(__always) public static func cosSin(_ x: Double) -> (cos: Double, sin: Double) {
        #if canImport(Glibc)
        var s = 0.0, c = 0.0
        _unsafePerformance { glibcSincos(x, &s, &c) }
        return (c, s)
        #else
        return (cos(x), sin(x))
        #endif
    }
    @_noLocks @inline(__always) public static func exp(_ x: Double) -> Double {
        _unsafePerformance { libmExp(x) }
    }
    @_noLocks @inline(__always) public static func expm1(_ x: Double) -> Double {
        _unsafePerformance { libmExpm1(x) }
    }
    @_noLocks @inline(__always) public static func log(_ x: Double) -> Double {
        _unsafePerformance { libmLog(x) }
    }
    @_noLocks @inline(__always) public static func log10(_ x: Double) -> Double {
        _unsafePerformance { libmLog10(x) }
    }
    @_noLocks @inline(__always) public static func log1p(_ x: Double) -> Double {
        _unsafePerformance { libmLog1p(x) }
    }
    @_noLocks @inline(__always) public static func exp2(_ x: Double) -> Double {
        _unsafePerformance { libmExp2(x) }
    }
    @_noLocks @inline(__always) public static func tanh(_ x: Double) -> Double {
        _unsafePerformance { libmTanh(x) }
    }
    @_noLocks @inline(__always) public static func pow(_ x: Double, _ y: Double) -> Double {
        _unsafePerformance { libmPow(x, y) }
    }
    @_noLocks @inline(__always) public static func sqrt(_ x: Double) -> Double { _unsafePerformance { x.squareRoot() } }
    @inlinable public static var pi: Double { .pi }
}
