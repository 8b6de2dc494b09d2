// The one file of ParamCore that imports the C library: the standard library has no page
// size, `madvise`, `posix_memalign` or `pthread_self`, and no transcendental functions on
// Linux. Everything else in ParamCore reaches C through the wrappers below.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `HotMemory` and `Resident` need of the operating system. Control side.
enum CLibrary {
    /// `MADV_POPULATE_READ` and `MADV_POPULATE_WRITE` (Linux 5.14, not in every libc's
    /// headers): map the pages readable, or writable without changing what they hold.
    static var MADV_POPULATE_READ: Int32 { 22 }
    static var MADV_POPULATE_WRITE: Int32 { 23 }

    /// Bytes in a page of memory.
    static var pageSize: Int { sysconf(Int32(_SC_PAGESIZE)) }

    /// Sets `byteCount` bytes at `pointer` to zero.
    static func zero(_ pointer: UnsafeMutableRawPointer, byteCount: Int) { memset(pointer, 0, byteCount) }

    /// `byteCount` bytes aligned to `alignment` (a power of two, a multiple of the pointer
    /// size), or nil; given back with `free`.
    static func alignedAllocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer? {
        var p: UnsafeMutableRawPointer? = nil
        guard posix_memalign(&p, alignment, byteCount) == 0 else { return nil }
        return p
    }

    /// `madvise(advice)` over `byteCount` bytes at the page-aligned `start`.
    static func populate(_ start: UnsafeMutableRawPointer?, byteCount: Int, advice: Int32) -> Bool {
        madvise(start, byteCount, advice) == 0
    }

    /// The calling thread's `pthread_t`, as a number.
    static var currentThread: UInt { UInt(pthread_self()) }
}

// libm, for `Math` (Curves/Math.swift), which wraps each call for the audio path.
@inlinable @inline(__always) func libmSin(_ x: Double) -> Double { sin(x) }
@inlinable @inline(__always) func libmCos(_ x: Double) -> Double { cos(x) }
@inlinable @inline(__always) func libmExp(_ x: Double) -> Double { exp(x) }
@inlinable @inline(__always) func libmExpm1(_ x: Double) -> Double { expm1(x) }
@inlinable @inline(__always) func libmLog(_ x: Double) -> Double { log(x) }
@inlinable @inline(__always) func libmLog10(_ x: Double) -> Double { log10(x) }
@inlinable @inline(__always) func libmLog1p(_ x: Double) -> Double { log1p(x) }
@inlinable @inline(__always) func libmExp2(_ x: Double) -> Double { exp2(x) }
@inlinable @inline(__always) func libmTanh(_ x: Double) -> Double { tanh(x) }
@inlinable @inline(__always) func libmPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }

#if canImport(Glibc)
/// glibc's `sincos` (a GNU extension the Glibc module does not export), declared by its
/// symbol: two doubles' addresses and a double, which Swift passes as C does on the targets
/// paramd builds for (x86-64, arm64). LeanPathTests holds it to `cos` and `sin`.
@_silgen_name("sincos")
func glibcSincos(_ x: Double, _ sin: UnsafeMutablePointer<Double>, _ cos: UnsafeMutablePointer<Double>)
#endif
