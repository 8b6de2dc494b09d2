// libm, wrapped for the audio path. This is the one file of ParamCore that imports the C
// library: the standard library has no transcendental functions on Linux. Each C call is
// wrapped directly in `_unsafePerformance` (the @_noLocks checker cannot see into C, and a
// Swift helper in between would be checked and rejected); libm's functions neither allocate
// nor lock.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
/// glibc's `sincos` (a GNU extension the Glibc module does not export), declared by its
/// symbol: two doubles' addresses and a double, which Swift passes as C does on the targets
/// paramd builds for (x86-64, arm64). LeanPathTests holds it to `cos` and `sin`.
@_silgen_name("sincos")
func glibcSincos(_ x: Double, _ sin: UnsafeMutablePointer<Double>, _ cos: UnsafeMutablePointer<Double>)
#endif

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
        #if canImport(Glibc)
        _unsafePerformance { Glibc.sin(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.sin(x) }
        #else
        _unsafePerformance { Darwin.sin(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func cos(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.cos(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.cos(x) }
        #else
        _unsafePerformance { Darwin.cos(x) }
        #endif
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
        #if canImport(Glibc)
        _unsafePerformance { Glibc.exp(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.exp(x) }
        #else
        _unsafePerformance { Darwin.exp(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func expm1(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.expm1(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.expm1(x) }
        #else
        _unsafePerformance { Darwin.expm1(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func log(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.log(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.log(x) }
        #else
        _unsafePerformance { Darwin.log(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func log10(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.log10(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.log10(x) }
        #else
        _unsafePerformance { Darwin.log10(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func log1p(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.log1p(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.log1p(x) }
        #else
        _unsafePerformance { Darwin.log1p(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func exp2(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.exp2(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.exp2(x) }
        #else
        _unsafePerformance { Darwin.exp2(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func tanh(_ x: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.tanh(x) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.tanh(x) }
        #else
        _unsafePerformance { Darwin.tanh(x) }
        #endif
    }
    @_noLocks @inline(__always) public static func pow(_ x: Double, _ y: Double) -> Double {
        #if canImport(Glibc)
        _unsafePerformance { Glibc.pow(x, y) }
        #elseif canImport(Musl)
        _unsafePerformance { Musl.pow(x, y) }
        #else
        _unsafePerformance { Darwin.pow(x, y) }
        #endif
    }
    @_noLocks @inline(__always) public static func sqrt(_ x: Double) -> Double { _unsafePerformance { x.squareRoot() } }
    @inlinable public static var pi: Double { .pi }
}
