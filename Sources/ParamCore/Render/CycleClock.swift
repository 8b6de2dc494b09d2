/// When the current JACK cycle started, as an NTP time (the clock OSC time tags use).
/// Built in the process callback from `jack_get_cycle_times`' `current_usecs` (JACK's
/// monotonic clock) and the offset between that clock and the system clock, which the control
/// thread measures and publishes.
public struct CycleClock: Sendable, BitwiseCopyable, Equatable {
    public var cycleStart: OSCTimeTag

    public init(cycleStart: OSCTimeTag) { self.cycleStart = cycleStart }

    /// Realtime-safe. `jackMicros` is the cycle's start on JACK's clock; `offsetMicros` is
    /// system time minus JACK time, in microseconds. Exact integer arithmetic.
    @_noLocks
    public init(jackMicros: UInt64, offsetMicros: Int64) {
        let unix = Int64(bitPattern: jackMicros) &+ offsetMicros
        let seconds = unix / 1_000_000
        let micros = unix - seconds * 1_000_000
        let ntpSeconds = UInt64(bitPattern: seconds &+ 2_208_988_800)
        cycleStart = (ntpSeconds << 32) | (UInt64(bitPattern: micros) << 32) / 1_000_000
    }
}
