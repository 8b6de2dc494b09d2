// INTERFACE STUB — the curves helper completes it.

/// The space an interpolation runs in (SPEC §3).
public enum ValueDomain: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    case linear, log, db

    /// Realtime-safe. Maps a value into the domain's space.
    @inlinable public func encode(_ value: Double) -> Double { value }
    /// Realtime-safe. Maps back from the domain's space.
    @inlinable public func decode(_ x: Double) -> Double { x }

    /// Control thread. `linear`, `log` or `db`.
    public init?(name: String) {
        switch name {
        case "linear": self = .linear
        case "log": self = .log
        case "db": self = .db
        default: return nil
        }
    }
}
