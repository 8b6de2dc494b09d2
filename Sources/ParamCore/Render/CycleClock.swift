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

/// Maps NTP times to frames on the audio side's frame counter.
///
/// Anchored on one cycle's measured start and advanced at the nominal sample rate, so two
/// tags 1000/48000 s apart map exactly 1000 frames apart. Each cycle's measured start is
/// compared with the anchor's prediction; only a disagreement of more than a frame that
/// persists (a real drift, a sample-rate change, a clock step — not one late callback)
/// re-anchors.
public struct FrameClock: Sendable {
    public private(set) var anchorFrame: UInt64 = 0
    public private(set) var anchorTime: OSCTimeTag = 0
    public private(set) var sampleRate = 0
    public private(set) var isValid = false
    public private(set) var reanchors = 0
    var disagreements = 0

    /// Cycles in a row that must disagree before re-anchoring.
    public static var patience: Int { 16 }

    public init() {}

    /// Realtime-safe. Feeds one cycle's measured start.
    @_noLocks
    public mutating func observe(cycleStart: OSCTimeTag, frame: UInt64, sampleRate rate: Int) {
        guard isValid, rate == sampleRate else {
            anchor(cycleStart, frame, rate)
            return
        }
        let predicted = Int64(bitPattern: anchorFrame) &+ cycleStart.frames(since: anchorTime, sampleRate: rate)
        let error = Int64(bitPattern: frame) &- predicted
        if error > 1 || error < -1 {
            disagreements &+= 1
            if disagreements >= Self.patience { anchor(cycleStart, frame, rate) }
        } else {
            disagreements = 0
        }
    }

    @_noLocks
    mutating func anchor(_ time: OSCTimeTag, _ frame: UInt64, _ rate: Int) {
        anchorTime = time
        anchorFrame = frame
        sampleRate = rate
        isValid = rate > 0
        disagreements = 0
        reanchors &+= 1
    }

    /// Realtime-safe. The frame at which `time` sounds (may lie before frame 0: negative).
    @_noLocks
    public func frame(at time: OSCTimeTag) -> Int64 {
        Int64(bitPattern: anchorFrame) &+ time.frames(since: anchorTime, sampleRate: sampleRate)
    }
}
