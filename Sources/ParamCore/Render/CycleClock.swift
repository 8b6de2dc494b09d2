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

/// Maps NTP times to frames on the audio side's frame counter, the way SPEC §4.6 defines a
/// frame's time: its process cycle's start (`jack_get_cycle_times`' current_usecs, related to
/// the system clock by the measured offset) plus its offset in the period at the nominal rate.
///
/// The mapping in force is one cycle's (frame, start) pair, the *anchor*: `frame(at:)` is the
/// anchor's frame plus the tag's distance from the anchor's start in frames at the nominal
/// rate, rounded to the nearest frame, in exact integer arithmetic. A time tag is resolved in
/// the cycle it falls in (the renderer asks every cycle until then), so it is never placed
/// more than a period ahead of the cycle the anchor was last checked against.
///
/// **Following JACK's clock.** Every cycle whose reading is believed becomes the anchor, unless
/// a hold is on (below). So a tag is placed as JACK's own clock places it: rounding to the
/// nearest frame is the only error (±½ frame), whatever JACK's clock does between cycles.
/// That matters more than it seems: JACK2's cycle times come from a delay-locked loop on the
/// driver's wake-ups, not from the frame count at a fixed rate. Measured here (jackd 1.9.21,
/// `-d dummy`, 48 kHz, 256 frames): the loop runs at 47998.3…47998.7 frames/s (1.5 frames a
/// second slower than nominal); after one late wake-up its period jumped from 5333.5 µs to
/// 5340 µs and took over a second to come back, a clock running 56 frames/s slow, 0.3 frames
/// a cycle. The previous design extrapolated one old anchor at the nominal rate and
/// re-anchored only after 16 cycles of more than a frame of disagreement: tags were placed
/// 0…2 frames late in steady running (+3…+40 µs, measured) and 5 frames late after that jump
/// (+110 µs). A smoothed estimate of the rate (a least-squares line, or a second-order loop
/// like JACK's own) would lag exactly such steps of JACK's loop; the cycle's own reading does
/// not, and JACK's loop has already smoothed it (its cycle starts are whole microseconds, so
/// they carry ±0.5 µs, 0.025 frame, of rounding).
///
/// **Bundles close in time keep exact distances (the hold).** Re-anchoring every cycle would
/// put two tags 1000/48000 s apart, resolved in different cycles, 999, 1000 or 1001 frames
/// apart, depending on how JACK's clock moved in between (at 1.5 frames/s of drift, 1000
/// frames apart is off by one in about 3 % of pairs, from the drift alone). So once a tag is
/// placed, the anchor is held for `holdSeconds` after the frame it was placed on: every tag
/// resolved during the hold uses the same anchor, and two tags N/rate s apart start exactly
/// N frames apart (N = 1000 at 48 kHz is 21 ms, well inside 0.1 s). Each placement extends
/// the hold.
///
/// While the held anchor is young (taken less than `holdSeconds` ago) it is kept whatever
/// JACK's loop reports meanwhile: within 0.1 s no clock a sound card or a timer runs on moves
/// by a frame (that would be 200 ppm), but JACK's loop does, after a late wake-up (the jump
/// above, 0.3 frames a cycle; under the load of a full test run, seen at 0.75 frames a cycle,
/// which put a pair 997 frames apart when the hold gave way at ½ frame). That movement is
/// the loop answering one late wake-up, not the frames moving, so holding is also the more
/// accurate choice. A held anchor older than `holdSeconds` is given up once it is more than
/// ½ frame from JACK's clock (`breaks` counts that), so a steady stream of tags cannot keep a
/// drifting anchor. So a tag's frame is at most ½ frame (rounding) from where JACK's clock
/// puts it when no other tag was placed in the last `holdSeconds`; under a hold, at most ½
/// frame plus what JACK's loop moved in the anchor's youth (0.1 s) or ½ frame after it. A
/// correction can happen at most once a cycle; under a hold, at most once per `holdSeconds`.
///
/// **Readings not believed.** A callback that runs late can read the next cycle's times while
/// the renderer is still on this cycle's frames, and the cycle after JACK ran cycles without
/// this client is read before the renderer has caught up (Renderer.followJackFrame): both put
/// the reading a period or more from where the last believed cycle predicts it. A reading
/// more than half a period from that prediction is not believed; `patience` such readings in
/// a row (a clock step, a new offset after a step of the system clock) re-anchor on the
/// reading. A smaller step (a wake-up late by less than half a period, as JACK's loop reports
/// it) is followed at once.
public struct FrameClock: Sendable {
    /// The mapping in force: a cycle's first frame and its start.
    public private(set) var anchorFrame: UInt64 = 0
    public private(set) var anchorTime: OSCTimeTag = 0
    public private(set) var sampleRate = 0
    public private(set) var isValid = false
    /// The last believed cycle: what the next reading is checked against.
    var lastFrame: UInt64 = 0
    var lastTime: OSCTimeTag = 0
    /// Until this frame the anchor is held (a tag was placed within `holdSeconds` before).
    public private(set) var holdUntil: UInt64 = 0
    /// How far, in frames, the anchor in force was from the last believed cycle's reading
    /// before that cycle was taken into account (positive: the anchor placed tags later than
    /// JACK's clock). Diagnostic.
    public private(set) var lastError: Double = 0
    /// Re-anchors on a reading not believed for `patience` cycles, a sample-rate change, or
    /// the first reading.
    public private(set) var reanchors = 0
    /// Held anchors given up for being more than ½ frame from JACK's clock.
    public private(set) var breaks = 0
    /// Readings not believed (late callbacks, cycles after a gap, clock steps).
    public private(set) var rejected = 0
    var disagreements = 0

    /// Readings in a row that must be disbelieved before the clock re-anchors on them.
    public static var patience: Int { 16 }
    /// How long after a placed tag the anchor is held, in seconds of frames.
    public static var holdSeconds: Double { 0.1 }
    /// How far a held anchor may be from JACK's clock, in frames, before it is given up.
    public static var holdLimit: Double { 0.5 }

    public init() {}

    /// Realtime-safe. Feeds one cycle's measured start. `periodFrames` is this cycle's length
    /// (a reading more than half of it from the prediction is not believed).
    @_noLocks
    public mutating func observe(cycleStart: OSCTimeTag, frame: UInt64, sampleRate rate: Int, periodFrames: Int) {
        guard isValid, rate == sampleRate else {
            reanchor(cycleStart, frame, rate)
            return
        }
        // Compared in 2⁻³² frames, as integers: no `.rodata` mask for a `magnitude` (Math).
        let jump = Self.deviationUnits(cycleStart, frame, from: lastTime, lastFrame, rate: rate)
        if jump.magnitude >= UInt64(max(periodFrames, 1)) &<< 31 {  // half a period
            rejected &+= 1
            disagreements &+= 1
            if disagreements >= Self.patience { reanchor(cycleStart, frame, rate) }
            return
        }
        disagreements = 0
        lastTime = cycleStart
        lastFrame = frame
        let error = Self.deviationUnits(cycleStart, frame, from: anchorTime, anchorFrame, rate: rate)
        lastError = Double(error) / 4_294_967_296
        if frame < holdUntil {
            // A young anchor is kept whatever JACK's loop does meanwhile; an older one only
            // while it stays within `holdLimit` of JACK's clock.
            if frame &- anchorFrame < UInt64(Double(sampleRate) * Self.holdSeconds) { return }
            guard error.magnitude > UInt64(Self.holdLimit * 4_294_967_296) else { return }
            breaks &+= 1
        }
        anchorTime = cycleStart
        anchorFrame = frame
    }

    /// Realtime-safe. A tag was placed on `frame` with this anchor: hold it for `holdSeconds`.
    @_noLocks
    public mutating func hold(placedAt frame: UInt64) {
        let end = frame &+ UInt64(Double(sampleRate) * Self.holdSeconds)
        if end > holdUntil { holdUntil = end }
    }

    @_noLocks
    mutating func reanchor(_ time: OSCTimeTag, _ frame: UInt64, _ rate: Int) {
        anchorTime = time
        anchorFrame = frame
        lastTime = time
        lastFrame = frame
        sampleRate = rate
        isValid = rate > 0
        disagreements = 0
        lastError = 0
        reanchors &+= 1
    }

    /// Realtime-safe. Where the reading (`time`, `frame`) lies against the line through
    /// (`referenceTime`, `referenceFrame`) at the nominal `rate`, in units of 2⁻³² frame
    /// (clamped to Int64, ±2³¹ frames): the frame the line gives for `time`, unrounded, minus
    /// `frame`. Positive: the line runs ahead of the reading, so it would place a tag later
    /// than the reading does. Exact integer arithmetic.
    @_noLocks @inline(__always)
    static func deviationUnits(_ time: OSCTimeTag, _ frame: UInt64, from referenceTime: OSCTimeTag, _ referenceFrame: UInt64,
                               rate: Int) -> Int64 {
        let units = Int128(time.ntpUnits(since: referenceTime))
        let frames = Int128(Int64(bitPattern: frame &- referenceFrame))
        return Int64(clamping: units * Int128(rate) - frames << 32)
    }

    /// Realtime-safe. The frame at which `time` sounds (may lie before frame 0: negative).
    @_noLocks
    public func frame(at time: OSCTimeTag) -> Int64 {
        Int64(bitPattern: anchorFrame) &+ time.frames(since: anchorTime, sampleRate: sampleRate)
    }
}
