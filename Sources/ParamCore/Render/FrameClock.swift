/// Maps NTP times to frames on the audio side's frame counter, the way SPEC §4.6 defines a
/// frame's time: its cycle's start plus its offset in the period at the nominal rate. The
/// mapping is one cycle's (frame, start) pair, the anchor, taken from every cycle whose
/// reading is believed, so tags are placed as JACK's own clock places them (±½ frame).
/// Once a tag is placed the anchor is held for `holdSeconds`, so tags close in time keep
/// exact distances; a held anchor older than that is given up when it drifts more than
/// `holdLimit` from JACK's clock. A reading more than half a period from the prediction
/// (a late callback, a gap) is not believed; `patience` of them in a row re-anchor, or, while
/// an anchor is held, are taken as a jump that the held anchor stays through.
/// docs/ARCHITECTURE.md explains the design and its measurements.
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
    /// How far JACK's clock lay from the held anchor at the counter's last jump, in 2⁻³² frames
    /// (PipeWire's counter steps against its clock at a quantum change): what the hold limit is
    /// measured from, so the jump itself does not give up a held anchor; 0 once it moves.
    var heldJumpUnits: Int64 = 0
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
    /// (a reading more than half of it from the prediction is not believed). `afterJump`: the
    /// frame was just moved on or back to JACK's counter, which at PipeWire's quantum change
    /// need not keep pace with its clock; the reading is believed as it is, and a held anchor
    /// stays through it (tags close in time keep their distances in JACK's frames).
    @_noLocks
    public mutating func observe(cycleStart: OSCTimeTag, frame: UInt64, sampleRate rate: Int, periodFrames: Int,
                                 afterJump: Bool = false) {
        guard isValid, rate == sampleRate else {
            reanchor(cycleStart, frame, rate)
            return
        }
        // Compared in 2⁻³² frames, as integers: no `.rodata` mask for a `magnitude` (Math).
        let jump = Self.deviationUnits(cycleStart, frame, from: lastTime, lastFrame, rate: rate)
        var jumped = afterJump
        if !afterJump && jump.magnitude >= UInt64(max(periodFrames, 1)) &<< 31 {  // half a period
            rejected &+= 1
            disagreements &+= 1
            guard disagreements >= Self.patience else { return }
            // The clock keeps its new distance from the counter: PipeWire's counter can step
            // against its clock at a quantum change with no step of its own to show it. A held
            // anchor stays through that as through a jump; one not held re-anchors.
            guard frame < holdUntil else { return reanchor(cycleStart, frame, rate) }
            jumped = true
        }
        disagreements = 0
        lastTime = cycleStart
        lastFrame = frame
        let error = Self.deviationUnits(cycleStart, frame, from: anchorTime, anchorFrame, rate: rate)
        lastError = Double(error) / 4_294_967_296
        if frame < holdUntil {
            // A young anchor is kept whatever JACK's loop does meanwhile; an older one only
            // while it drifts less than `holdLimit` from JACK's clock since the last jump.
            if jumped { heldJumpUnits = error }
            if frame &- anchorFrame < UInt64(Double(sampleRate) * Self.holdSeconds) { return }
            let drift = Int64(clamping: Int128(error) - Int128(heldJumpUnits))
            guard drift.magnitude > UInt64(Self.holdLimit * 4_294_967_296) else { return }
            breaks &+= 1
        }
        anchorTime = cycleStart
        anchorFrame = frame
        heldJumpUnits = 0
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
        heldJumpUnits = 0
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
