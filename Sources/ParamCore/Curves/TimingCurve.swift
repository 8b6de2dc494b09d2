/// A timing curve: maps progress in [0, 1] to eased progress (which may overshoot for back,
/// elastic and spring curves). Parsed on the control side (`parse(_:)`), evaluated on the audio
/// side (`prepare(requestedSeconds:velocity:state:)` once, then `value(at:state:)` per sample).
///
/// Every payload is validated by `parse(_:)`; the realtime functions trust it. Build curves from
/// code through `parse(_:)` or with the same ranges (see docs/CURVES.md).
public enum TimingCurve: Sendable, BitwiseCopyable, Equatable {
    /// Constant speed.
    case linear
    /// A CSS / Core Animation cubic Bézier through (0,0), (x1,y1), (x2,y2), (1,1); x1, x2 in [0, 1].
    /// Core Animation's named functions (`easeIn`, `default`…) are values of this case.
    case cubicBezier(x1: Double, y1: Double, x2: Double, y2: Double)
    /// One of Robert Penner's easings in easings.net's normalised form (all families but Back).
    case penner(PennerEasing, EasingDirection)
    /// Penner's Back easing with overshoot `s` (1.70158 by default); the in-out form uses s·1.525.
    case back(EasingDirection, overshoot: Double)
    /// CSS `steps(count, position)`.
    case steps(count: Int, position: StepPosition)
    /// SuperCollider's numeric curvature: (1 − e^(c·x)) / (1 − e^c); linear when |c| < 0.001.
    case curvature(Double)
    /// A physical spring m·x″ + c·x′ + k·(x − 1) = 0, x(0) = 0, x′(0) = velocity (UIKit units):
    /// runs in its own time until it settles (`prepare` returns the settle time).
    case spring(mass: Double, stiffness: Double, damping: Double, velocity: Double)
    /// UIKit's `usingSpringWithDamping:initialSpringVelocity:`: a spring of mass 1 whose stiffness
    /// is fitted so that it settles exactly at the message's duration.
    case uiKitSpring(dampingRatio: Double, velocity: Double)
}

/// Penner easing families (Back has its own case because it takes an argument).
public enum PennerEasing: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    case quad, cubic, quart, quint, sine, expo, circ, elastic, bounce
}

/// Which end of a Penner easing is eased.
public enum EasingDirection: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    case easeIn, easeOut, easeInOut
}

/// CSS `<step-position>`.
public enum StepPosition: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    case jumpStart, jumpEnd, jumpNone, jumpBoth
}

extension TimingCurve {
    /// Core Animation's `kCAMediaTimingFunctionEaseIn`, CSS `ease-in`.
    @inlinable public static var easeIn: TimingCurve { .cubicBezier(x1: 0.42, y1: 0, x2: 1, y2: 1) }
    /// Core Animation's `kCAMediaTimingFunctionEaseOut`, CSS `ease-out`.
    @inlinable public static var easeOut: TimingCurve { .cubicBezier(x1: 0, y1: 0, x2: 0.58, y2: 1) }
    /// Core Animation's `kCAMediaTimingFunctionEaseInEaseOut`, CSS `ease-in-out`.
    @inlinable public static var easeInEaseOut: TimingCurve { .cubicBezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1) }
    /// Core Animation's `kCAMediaTimingFunctionDefault`, CSS `ease`.
    @inlinable public static var `default`: TimingCurve { .cubicBezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1) }
    /// Penner's default Back overshoot.
    @inlinable public static var defaultOvershoot: Double { 1.70158 }

    /// True for the physical spring, whose duration is its own settle time, not the message's.
    @inlinable public var ignoresRequestedDuration: Bool {
        if case .spring = self { return true }
        return false
    }
}

extension TimingCurve {
    /// Realtime-safe. Called once when an animation starts. `requestedSeconds` is the
    /// message's duration; `velocity` is the initial velocity in UIKit's unit (1.0 = the whole
    /// distance per second, positive toward the target), or NaN when none was given (then the
    /// curve's own is used; an infinite one is ignored the same way). Only springs use it.
    /// Returns the duration in seconds the animation really runs: `requestedSeconds` for every
    /// curve but the physical spring, whose settle time (at most
    /// `SpringMotion.maximumSettleSeconds`) it returns instead.
    @inlinable @_noLocks
    public func prepare(requestedSeconds: Double, velocity: Double, state: inout CurveState) -> Double {
        state = CurveState()
        switch self {
        case let .spring(mass, stiffness, damping, ownVelocity):
            let v = velocity.isFinite ? velocity : ownVelocity
            let solution = SpringSolution(mass: mass, stiffness: stiffness, damping: damping, velocity: v)
            let seconds = solution.settleSeconds(cap: SpringMotion.maximumSettleSeconds)
            solution.store(in: &state, seconds: seconds)
            return seconds
        case let .uiKitSpring(dampingRatio, ownVelocity):
            let v = velocity.isFinite ? velocity : ownVelocity
            guard requestedSeconds > 0, requestedSeconds.isFinite else {
                // Nothing to fit: the value sits at 0 until progress 1 (the engine jumps anyway).
                SpringSolution(mass: 1, stiffness: 1, damping: 2, velocity: 0).store(in: &state, seconds: 0)
                return requestedSeconds
            }
            let motion = SpringMotion.fitted(dampingRatio: dampingRatio, velocity: v, seconds: requestedSeconds)
            SpringSolution(mass: motion.mass, stiffness: motion.stiffness, damping: motion.damping,
                           velocity: motion.velocity).store(in: &state, seconds: requestedSeconds)
            return requestedSeconds
        default:
            return requestedSeconds
        }
    }

    /// Realtime-safe. Eased progress at `progress` in [0, 1] (values outside are clamped);
    /// exactly 0 at 0 (CSS steps with jump-start/jump-both excepted) and exactly 1 at 1.
    /// Any order of calls is correct; increasing progress is fastest for cubic Béziers.
    @inlinable @_noLocks @inline(__always)
    public func value(at progress: Double, state: inout CurveState) -> Double {
        if case let .steps(count, position) = self {
            return Steps.value(at: progress, count: count, position: position)
        }
        guard progress > 0 else { return 0 }   // NaN lands here too
        guard progress < 1 else { return 1 }
        switch self {
        case .linear:
            return progress
        case let .cubicBezier(x1, y1, x2, y2):
            return CubicBezier.value(at: progress, x1: x1, y1: y1, x2: x2, y2: y2, state: &state)
        case let .penner(easing, direction):
            return Penner.value(at: progress, easing: easing, direction: direction)
        case let .back(direction, overshoot):
            return Penner.back(at: progress, direction: direction, overshoot: overshoot)
        case let .curvature(c):
            return Curvature.value(at: progress, curvature: c, state: &state)
        case .spring, .uiKitSpring:
            return SpringSolution.value(atSeconds: progress * state.springSpanSeconds, state: &state)
        case .steps:
            return progress  // handled above
        }
    }
}

/// Why a curve string was refused. Each case carries text for the user: the unknown name, or
/// the reason the arguments are malformed. `description` is the full user-facing message.
public enum CurveParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The curve's name is not one paramd knows (carries the name as written).
    case unknownCurve(String)
    /// The name is known but its arguments are not acceptable (carries the reason).
    case malformedArguments(String)

    public var description: String {
        switch self {
        case let .unknownCurve(name): return "unknown curve '\(name)'"
        case let .malformedArguments(reason): return reason
        }
    }
}
