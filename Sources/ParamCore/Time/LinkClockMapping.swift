/// Where JACK's clock meets Link's, for starting on Link's grid (SPEC §14, quantized starts).
///
/// Link on Linux reads CLOCK_MONOTONIC_RAW. JACK's clock (`jack_get_time`) is its
/// implementation's choice: libjack of JACK2 1.9.21 reads CLOCK_MONOTONIC_RAW too (measured:
/// docs/MUSICAL-TIME.md), others read CLOCK_MONOTONIC, which NTP and PTP slew. So paramd
/// assumes neither: the control thread reads JACK's clock, Link's, then JACK's again, and keeps
/// the offset with the narrowest bracket; it measures again often enough that a slew (tens of
/// ppm when disciplined) stays far below a frame between measurements.
public struct LinkClockMapping: Equatable, Sendable, BitwiseCopyable {
    /// Link's clock minus JACK's clock, in microseconds.
    public var linkMinusJackMicros: Int64
    /// Half the bracket the reading was taken in: the offset is right to within this.
    public var uncertaintyMicros: Int64

    public init(linkMinusJackMicros: Int64, uncertaintyMicros: Int64 = 0) {
        self.linkMinusJackMicros = linkMinusJackMicros
        self.uncertaintyMicros = uncertaintyMicros
    }

    /// Control thread. The offset from Link's clock read between two readings of JACK's; nil
    /// when the second JACK reading is before the first.
    public init?(jackMicrosBefore: UInt64, linkMicros: Int64, jackMicrosAfter: UInt64) {
        guard jackMicrosAfter >= jackMicrosBefore, jackMicrosAfter < UInt64(Int64.max) else { return nil }
        let before = Int64(jackMicrosBefore), after = Int64(jackMicrosAfter)
        let midpoint = before + (after - before) / 2
        self.init(linkMinusJackMicros: linkMicros &- midpoint, uncertaintyMicros: (after - before + 1) / 2)
    }

    /// Control thread. Whichever of the two was read in the narrower bracket (`self` on a tie).
    public func tighter(_ other: LinkClockMapping) -> LinkClockMapping {
        other.uncertaintyMicros < uncertaintyMicros ? other : self
    }

    /// Realtime-safe. The Link time at which `frame` is heard: the period's first frame is at
    /// JACK time `periodJackMicros` (`jack_get_cycle_times`' current_usecs), each frame after
    /// it 1/`sampleRate` later, and the output latency (`out_1`'s playback latency, in frames)
    /// is added, as Link's documentation asks of a client.
    @_noLocks
    public func linkMicros(hearingFrame frame: UInt64, periodFirstFrame: UInt64, periodJackMicros: UInt64,
                           sampleRate: Double, outputLatencyFrames: UInt32) -> Int64 {
        let frames = Timeline.offset(frame, from: periodFirstFrame) + Double(outputLatencyFrames)
        let micros = frames * 1_000_000 / sampleRate
        return Int64(bitPattern: periodJackMicros) &+ linkMinusJackMicros &+ Self.nearest(micros)
    }

    /// Realtime-safe. The frame position (fractional) heard at Link time `linkMicros`: the
    /// inverse of `linkMicros(hearingFrame:…)`.
    @_noLocks
    public func framePosition(heardAtLinkMicros linkMicros: Int64, periodFirstFrame: UInt64, periodJackMicros: UInt64,
                              sampleRate: Double, outputLatencyFrames: UInt32) -> Double {
        let jackMicros = linkMicros &- linkMinusJackMicros
        let sincePeriod = Double(jackMicros &- Int64(bitPattern: periodJackMicros))
        return Double(periodFirstFrame) + sincePeriod * sampleRate / 1_000_000 - Double(outputLatencyFrames)
    }

    /// Realtime-safe. `x` to the nearest whole number, ties away from zero (`rounded()` is not
    /// realtime-safe); 0 for NaN and anything beyond ±2^62.
    @_noLocks
    @inline(__always)
    static func nearest(_ x: Double) -> Int64 {
        guard Math.magnitudeIsBelow(x, 4.6e18) else { return 0 }
        return Int64(x >= 0 ? x + 0.5 : x - 0.5)
    }
}
