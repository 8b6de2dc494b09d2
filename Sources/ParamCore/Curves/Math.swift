// libm, wrapped for the audio path. This is the one file of ParamCore that imports the C
// library: the standard library has no transcendental functions on Linux. Each call is
// wrapped in `_unsafePerformance` because the compiler cannot see into C; libm's
// exp/log/sin/cos/pow neither allocate nor lock.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Realtime-safe math functions over `Double`.
public enum Math {
    @_noLocks @inline(__always) public static func sin(_ x: Double) -> Double { _unsafePerformance { _sin(x) } }
    @_noLocks @inline(__always) public static func cos(_ x: Double) -> Double { _unsafePerformance { _cos(x) } }
    @_noLocks @inline(__always) public static func exp(_ x: Double) -> Double { _unsafePerformance { _exp(x) } }
    @_noLocks @inline(__always) public static func expm1(_ x: Double) -> Double { _unsafePerformance { _expm1(x) } }
    @_noLocks @inline(__always) public static func log(_ x: Double) -> Double { _unsafePerformance { _log(x) } }
    @_noLocks @inline(__always) public static func log10(_ x: Double) -> Double { _unsafePerformance { _log10(x) } }
    @_noLocks @inline(__always) public static func pow(_ x: Double, _ y: Double) -> Double { _unsafePerformance { _pow(x, y) } }
    @_noLocks @inline(__always) public static func log1p(_ x: Double) -> Double { _unsafePerformance { _log1p(x) } }
    @_noLocks @inline(__always) public static func exp2(_ x: Double) -> Double { _unsafePerformance { _exp2(x) } }
    @_noLocks @inline(__always) public static func tanh(_ x: Double) -> Double { _unsafePerformance { _tanh(x) } }
    @_noLocks @inline(__always) public static func sqrt(_ x: Double) -> Double { _unsafePerformance { x.squareRoot() } }
    @inlinable public static var pi: Double { .pi }
}

// Module-level aliases so the wrappers above call libm rather than themselves.
@inline(__always) private func _sin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func _cos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func _exp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func _expm1(_ x: Double) -> Double { expm1(x) }
@inline(__always) private func _log(_ x: Double) -> Double { log(x) }
@inline(__always) private func _log10(_ x: Double) -> Double { log10(x) }
@inline(__always) private func _log1p(_ x: Double) -> Double { log1p(x) }
@inline(__always) private func _exp2(_ x: Double) -> Double { exp2(x) }
@inline(__always) private func _tanh(_ x: Double) -> Double { tanh(x) }
@inline(__always) private func _pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
