/// How fast a modulator cycles: in Hz, or one cycle per so many beats of the timeline (a
/// musical rate, phase-locked to it: SPEC §14, §15).
public enum ModulatorRate: Sendable, BitwiseCopyable, Equatable {
    case hertz(Double)
    /// The cycle's length in beats (quarter notes): `1m` at 4/4 is 4, `8t` is 1/3.
    case beats(Double)
}

/// A length given in seconds or in musical time (a fade, a duration, a delay). Musical time is
/// kept in beats; it becomes frames on the audio side, at the timeline's tempo.
public enum ModulatorTime: Sendable, BitwiseCopyable, Equatable {
    case seconds(Double)
    case beats(Double)

    public static var zero: ModulatorTime { .seconds(0) }

    /// Realtime-safe. Seconds at `tempo` BPM (a beat lasts 60/tempo s).
    @_noLocks @inlinable
    public func seconds(atTempo tempo: Double) -> Double {
        switch self {
        case .seconds(let s): return s
        case .beats(let b): return tempo > 0 ? b * 60 / tempo : 0
        }
    }

    @inlinable public var isZero: Bool {
        switch self {
        case .seconds(let s): return s == 0
        case .beats(let b): return b == 0
        }
    }
}

/// Everything the audio thread needs to start or replace a parameter's modulator, validated on
/// the control side (`ModulatorRequest`). Fixed size, so it crosses the command ring.
public struct ModulatorSpec: Sendable, BitwiseCopyable, Equatable {
    public var shape: ModulatorShape
    public var rate: ModulatorRate
    /// 0…1: the share of the parameter's range (in its domain) the wave reaches at its peak.
    public var depth: Double = 0.1
    /// 0…1: the position in the cycle the wave is at on the timeline's beat 0 (musical) or
    /// when it starts (Hz).
    public var phaseOffset: Double = 0
    public var polarity: ModulatorPolarity = .bi
    /// The depth rises from 0 (or from where it is, replacing a modulator) over this time.
    public var fade: ModulatorTime = .zero
    /// The generator's seed; nil: the owner's default (the parameter's own, so two
    /// parameters do not wobble alike).
    public var seed: UInt64?

    public init(shape: ModulatorShape, rate: ModulatorRate) {
        self.shape = shape
        self.rate = rate
    }
}
