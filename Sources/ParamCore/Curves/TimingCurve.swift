// INTERFACE STUB — the curves helper replaces the bodies; the signatures are the contract the
// animation engine uses.

/// A timing curve: maps progress in [0, 1] to eased progress (which may overshoot for back,
/// elastic and spring curves). Parsed on the control side, evaluated on the audio side.
public enum TimingCurve: Sendable, BitwiseCopyable, Equatable {
    case linear
    case cubicBezier(x1: Double, y1: Double, x2: Double, y2: Double)
}

/// Per-animation evaluation state (solver warm start, resolved spring constants).
/// Fixed size, BitwiseCopyable: it lives inside the animation on the audio thread.
public struct CurveState: Sendable, BitwiseCopyable {
    public var t: Double = 0
    public init() {}
}

extension TimingCurve {
    /// Realtime-safe. Called once when an animation starts. `requestedSeconds` is the
    /// message's duration; `velocity` is the initial velocity in UIKit's unit (1.0 = the whole
    /// distance per second), or NaN when none was given (then the curve's own is used).
    /// Returns the duration in seconds the animation really runs: `requestedSeconds` for most
    /// curves, the settle time for a physical spring.
    @inlinable
    public func prepare(requestedSeconds: Double, velocity: Double, state: inout CurveState) -> Double {
        state = CurveState()
        return requestedSeconds
    }

    /// Realtime-safe. Eased progress at `progress` in [0, 1]; exactly 0 at 0 and 1 at 1.
    @inlinable
    public func value(at progress: Double, state: inout CurveState) -> Double {
        switch self {
        case .linear: return progress
        case .cubicBezier: return progress
        }
    }

    /// Control thread. Parses a curve string as SPEC §4.2 spells it.
    public static func parse(_ text: String) throws(CurveParseError) -> TimingCurve {
        switch text {
        case "linear": return .linear
        default: throw CurveParseError.unknownCurve(text)
        }
    }
}

public enum CurveParseError: Error, Equatable, Sendable {
    case unknownCurve(String)
    case malformedArguments(String)
}
