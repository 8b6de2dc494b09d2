/// SPEC §15's layer rule: a parameter sounds its animated value moved by depth × wave × its
/// range in its domain, then clamped to the range. In its domain: `linear` adds to the value,
/// `log` adds depth·wave·(ln max − ln min) to ln value (so a wobble is even in pitch), `db` the
/// same in decibels; each with `ValueDomain`'s floors. Fixed per parameter, so the span is
/// computed once, not per frame.
public struct ModulationLayer: Sendable, BitwiseCopyable, Equatable {
    public let domain: ValueDomain
    public let minimum: Double
    public let maximum: Double
    /// encode(maximum) − encode(minimum): the range in the domain's space.
    public let span: Double

    /// Realtime-safe (the encoding calls libm's log for `log` and `db`).
    @_noLocks
    public init(domain: ValueDomain, minimum: Double, maximum: Double) {
        self.domain = domain
        self.minimum = minimum
        self.maximum = maximum
        span = domain.encode(maximum) - domain.encode(minimum)
    }

    /// Realtime-safe. Clamps to the range; NaN becomes the minimum (as `AnimatedParameter`).
    @_noLocks @inlinable @inline(__always)
    public func clamp(_ v: Double) -> Double {
        if v >= maximum { return maximum }
        if v >= minimum { return v }
        return minimum
    }

    /// Realtime-safe. The sounding value for `animated` moved by `offset` in the domain's space
    /// (depth·wave·span). An offset of 0 leaves the animated value as it is, to the bit.
    @_noLocks @inlinable @inline(__always)
    public func sounding(animated: Double, offset: Double) -> Double {
        if case .linear = domain { return clamp(animated + offset) }
        if offset == 0 { return clamp(animated) }
        return clamp(domain.decode(domain.encode(animated) + offset))
    }

    /// Realtime-safe. `sounding(animated:offset:)` with the animated value already encoded
    /// (a resting parameter's, encoded once a chunk).
    @_noLocks @inlinable @inline(__always)
    public func sounding(encodedAnimated: Double, animated: Double, offset: Double) -> Double {
        if case .linear = domain { return clamp(animated + offset) }
        if offset == 0 { return clamp(animated) }
        return clamp(domain.decode(encodedAnimated + offset))
    }

    /// Realtime-safe. The rule as one pure function: `wave` is the polarity-mapped wave
    /// (−1…1), `depth` 0…1.
    @_noLocks
    public static func sounding(animated: Double, wave: Double, depth: Double, domain: ValueDomain,
                                minimum: Double, maximum: Double) -> Double {
        let layer = ModulationLayer(domain: domain, minimum: minimum, maximum: maximum)
        return layer.sounding(animated: animated, offset: depth * wave * layer.span)
    }
}
