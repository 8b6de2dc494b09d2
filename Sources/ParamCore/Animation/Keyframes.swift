/// A keyframe animation's values prepared for the audio thread: values in the domain's
/// space, paced key times resolved, and the segment last used (a warm start for the search).
public struct KeyframeTrack: Sendable, BitwiseCopyable {
    @usableFromInline var spec = KeyframeSpec()
    @usableFromInline var segment = 0
    /// The segment whose curve `curveState` is prepared for; -1 before the first.
    @usableFromInline var preparedSegment = -1
    @usableFromInline var curveState = CurveState()

    public init() {}

    /// Realtime-safe. Takes `spec`'s values into the domain's space; `paced` spaces the key
    /// times by the distance between values, so the motion has one constant speed.
    @_noLocks
    public init(_ source: KeyframeSpec) {
        spec = source
        let n = spec.count
        var i = 0
        while i < n {
            spec.values[i] = spec.domain.encode(spec.values[i])
            i &+= 1
        }
        if spec.calculation == .paced && n > 1 {
            var total = 0.0
            i = 1
            while i < n {
                total += abs(spec.values[i] - spec.values[i &- 1])
                i &+= 1
            }
            var run = 0.0
            spec.times[0] = 0
            i = 1
            while i < n {
                run += abs(spec.values[i] - spec.values[i &- 1])
                spec.times[i] = total > 0 ? run / total : Double(i) / Double(n &- 1)
                i &+= 1
            }
            spec.times[n &- 1] = 1
        }
    }

    /// Realtime-safe. The value, in the domain's space, at progress `u` in [0, 1].
    @_noLocks
    public mutating func encodedValue(at u: Double) -> Double {
        let n = spec.count
        if n <= 1 { return spec.values[0] }
        if u >= 1 { return spec.values[n &- 1] }
        if u <= 0 && spec.times[0] >= 0 { return spec.values[0] }
        // Find i with times[i] ≤ u < times[i+1], starting from the last segment used.
        var i = segment
        if i > n &- 2 { i = n &- 2 }
        while i > 0 && u < spec.times[i] { i &-= 1 }
        while i < n &- 2 && u >= spec.times[i &+ 1] { i &+= 1 }
        segment = i
        let t0 = spec.times[i], t1 = spec.times[i &+ 1]
        if i != preparedSegment {
            // Each segment's curve runs over the segment's own duration (a UIKit spring is
            // fitted to it); physical springs are refused on the control side.
            preparedSegment = i
            _ = spec.curves[i].prepare(requestedSeconds: (t1 - t0) * spec.seconds, velocity: .nan, state: &curveState)
        }
        if spec.calculation == .discrete { return spec.values[i] }
        let local = t1 > t0 ? (u - t0) / (t1 - t0) : 1
        // Paced ignores per-segment curves, as Core Animation does.
        let eased = spec.calculation == .paced ? local : spec.curves[i].value(at: local, state: &curveState)
        let p1 = spec.values[i], p2 = spec.values[i &+ 1]
        if spec.calculation != .cubic {
            return p1 + (p2 - p1) * eased
        }
        // Catmull-Rom through the values; the ends repeat their neighbour.
        let p0 = i > 0 ? spec.values[i &- 1] : p1
        let p3 = i &+ 2 < n ? spec.values[i &+ 2] : p2
        let t = eased, t2 = t * t, t3 = t2 * t
        return 0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 + (3 * p1 - p0 - 3 * p2 + p3) * t3)
    }
}
