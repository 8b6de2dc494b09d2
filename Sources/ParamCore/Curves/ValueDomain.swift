/// The space an interpolation runs in (SPEC §3). The engine interpolates
/// `decode(encode(from) + (encode(to) − encode(from)) · eased)` and lands exactly on the
/// target itself at progress 1.
public enum ValueDomain: UInt8, Sendable, BitwiseCopyable, NamedCases {
    /// The value itself.
    case linear
    /// Equal ratios per unit of progress: encode = ln v. Values ≤ `logFloor` (including 0 and
    /// negatives) are taken as `logFloor`.
    case log
    /// Decibels: encode = 20·log10 v, floored at `decibelFloor` (−120 dB; 0 and negatives
    /// included); decode = 10^(x/20), computed as e^(x·ln 10/20) (libm's exp is several times
    /// faster than its pow, and within 2e-15 relative of it over −120…+120 dB).
    case db

    /// Smallest value the `log` domain represents: 1e-9 (−180 dB as a gain). Tiny, so that a
    /// move from 0 still travels through every audible ratio, yet finite.
    @inlinable public static var logFloor: Double { 1e-9 }
    /// Floor of the `db` domain, in decibels.
    @inlinable public static var decibelFloor: Double { -120 }

    /// ln 10 / 20: e raised to a level in dB times this is the level as a gain.
    @inlinable public static var nepersPerDecibel: Double { 0.11512925464970229 }

    /// Realtime-safe. Maps a value into the domain's space.
    @inlinable @_noLocks
    public func encode(_ value: Double) -> Double {
        switch self {
        case .linear:
            return value
        case .log:
            return Math.log(value > ValueDomain.logFloor ? value : ValueDomain.logFloor)
        case .db:
            // 10^(−120/20) = 1e-6: at or below it (and for 0 or negatives) the floor applies.
            guard value > 1e-6 else { return ValueDomain.decibelFloor }
            return max(20 * Math.log10(value), ValueDomain.decibelFloor)
        }
    }

    /// Realtime-safe. Maps back from the domain's space.
    @inlinable @_noLocks
    public func decode(_ x: Double) -> Double {
        switch self {
        case .linear: return x
        case .log: return Math.exp(x)
        case .db: return Math.exp(x * ValueDomain.nepersPerDecibel)
        }
    }

    /// `linear`, `log` or `db`, the name `init(name:)` reads (`NamedCases`).
    public var name: String {
        switch self {
        case .linear: return "linear"
        case .log: return "log"
        case .db: return "db"
        }
    }
}
