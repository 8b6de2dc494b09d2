/// A parameter's value over a chunk: `base + ((from + delta·((position + i)·inverse)) − end)` at
/// its frame `i`, the arithmetic of `AnimatedParameter.renderLinearRamp` (the position counted
/// as an exact Double). At rest, `from` and `delta` are −0, so the bracket is −0 and the value
/// is `base` to the bit (−0 included).
public struct LinearSpan: Sendable, BitwiseCopyable {
    @usableFromInline let base: Double
    @usableFromInline let from: Double
    @usableFromInline let delta: Double
    @usableFromInline let end: Double
    @usableFromInline let inverse: Double
    @usableFromInline let position: Double

    @inlinable
    init(base: Double, from: Double, delta: Double, end: Double, inverse: Double, position: Double) {
        self.base = base
        self.from = from
        self.delta = delta
        self.end = end
        self.inverse = inverse
        self.position = position
    }

    @inlinable
    init(resting value: Double) {
        self.init(base: value, from: -0.0, delta: -0.0, end: 0, inverse: 0, position: 0)
    }

    /// Realtime-safe. The value at frame `i` of the chunk (an integer, as a Double).
    @_noLocks @inlinable @inline(__always)
    func value(at i: Double) -> Double { value(atPosition: position + i) }

    /// Realtime-safe. The value at position `w` of the pass (an integer, as a Double).
    @_noLocks @inlinable @inline(__always)
    func value(atPosition w: Double) -> Double { base + ((from + delta * (w * inverse)) - end) }
}
