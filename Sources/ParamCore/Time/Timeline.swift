/// paramd's own timeline (SPEC §14): beats counted in JACK frames from the first frame rendered,
/// so at 120 BPM and 48 kHz a beat is exactly 24,000 frames whatever the host clock does.
///
/// The tempo holds between changes; a change may glide, linearly in BPM over a number of
/// frames, and the beat stays continuous through it (the beat is the integral of the tempo).
/// The segment since the last change and the one before it are kept, so a change placed on a
/// frame later in the period, or just past, reads right on both sides; a frame before both is
/// read at the earlier one's starting tempo. A plain value of a few words, so the audio thread
/// can own one and the control thread can read a copy; nothing here allocates, locks or waits.
/// The grid, and seconds against beats: Timeline+Grid.swift. docs/MUSICAL-TIME.md.
public struct Timeline: Equatable, Sendable, BitwiseCopyable {
    /// The tempi paramd accepts, Link's range (SPEC §14): anything else is refused on the control
    /// side, not clamped.
    public static var tempoRange: ClosedRange<Double> { minimumTempo ... maximumTempo }
    /// The bar lengths paramd accepts, in beats.
    public static var beatsPerBarRange: ClosedRange<Int> { 1 ... maximumBeatsPerBar }

    // Literals rather than stored statics: a global's lazy initialisation is not realtime-safe.
    @inline(__always) public static var minimumTempo: Double { 20 }
    @inline(__always) public static var maximumTempo: Double { 999 }
    @inline(__always) public static var maximumBeatsPerBar: Int { 64 }

    public let sampleRate: Double
    public let beatsPerBar: Int
    /// The segment since the last tempo change (from the origin before the first).
    public private(set) var current: TempoSegment
    /// The segment before `current` (a copy of it before the first change).
    public private(set) var previous: TempoSegment

    /// Realtime-safe. A timeline at `tempo` whose beat 0 falls on `originFrame`. The caller
    /// gives values inside `tempoRange` and `beatsPerBarRange` (checked on the control side);
    /// anything else is held to them, so the arithmetic never meets a tempo ≤ 0.
    @_noLocks
    public init(tempo: Double, beatsPerBar: Int, sampleRate: Double, originFrame: UInt64) {
        self.init(tempo: tempo, beatsPerBar: beatsPerBar, sampleRate: sampleRate, beat: 0, atFrame: originFrame)
    }

    /// Realtime-safe. A timeline at `tempo` that is on `beat` at `frame`: another clock's
    /// beat carried into JACK frames (Link's, captured for a period's first frame heard). A
    /// beat that is not finite is taken as 0.
    @_noLocks
    public init(tempo: Double, beatsPerBar: Int, sampleRate: Double, beat: Double, atFrame frame: UInt64) {
        self.sampleRate = sampleRate > 0 && sampleRate.isFinite ? sampleRate : 48_000
        self.beatsPerBar = min(max(beatsPerBar, 1), Self.maximumBeatsPerBar)
        let held = Self.held(tempo)
        current = TempoSegment(anchorFrame: frame, anchorBeat: beat.isFinite ? beat : 0, startTempo: held,
                               endTempo: held, glideFrames: 0)
        previous = current
    }

    /// Realtime-safe. `tempo` held to `tempoRange` (NaN to its lower end).
    @_noLocks
    static func held(_ tempo: Double) -> Double {
        tempo >= minimumTempo ? min(tempo, maximumTempo) : minimumTempo
    }

    /// The frame the current segment starts at (the origin, or the last tempo change).
    public var anchorFrame: UInt64 { current.anchorFrame }

    /// Realtime-safe. Changes the tempo at `frame`, gliding to `bpm` over `glideFrames` frames
    /// (0: at once), starting from the tempo at that frame: the beat is continuous, a glide in
    /// progress is left where it is. A frame before the current segment's start is taken as
    /// its start.
    @_noLocks
    public mutating func setTempo(_ bpm: Double, atFrame frame: UInt64, glideFrames: UInt64 = 0) {
        let at = max(frame, current.anchorFrame)
        let beat = beat(at: at)
        let tempoNow = tempo(at: at)
        let target = Self.held(bpm)
        let glides = glideFrames > 0 && target != tempoNow
        previous = current
        current = TempoSegment(anchorFrame: at, anchorBeat: beat, startTempo: glides ? tempoNow : target,
                               endTempo: target, glideFrames: glides ? glideFrames : 0)
    }

    /// Realtime-safe. The segment that holds `frame`.
    @_noLocks
    @inline(__always)
    func segment(at frame: UInt64) -> TempoSegment { frame >= current.anchorFrame ? current : previous }

    /// Realtime-safe. The tempo at `frame`, BPM.
    @_noLocks
    public func tempo(at frame: UInt64) -> Double {
        let segment = segment(at: frame)
        return segment.tempo(atOffset: Self.offset(frame, from: segment.anchorFrame))
    }

    /// Realtime-safe. The timeline's beat at `frame` (0 at the origin; negative before it).
    @_noLocks
    public func beat(at frame: UInt64) -> Double {
        let segment = segment(at: frame)
        return segment.beat(atOffset: Self.offset(frame, from: segment.anchorFrame), sampleRate: sampleRate)
    }

    /// Realtime-safe. The beat at a fractional frame position (from frame 0).
    @_noLocks
    public func beat(atPosition position: Double) -> Double {
        let anchor = Double(current.anchorFrame)
        let segment = position >= anchor ? current : previous
        return segment.beat(atOffset: position - Double(segment.anchorFrame), sampleRate: sampleRate)
    }

    /// Realtime-safe. The frame position (fractional, from frame 0) at which the timeline
    /// reaches `beat`. Exact below 2^53 frames.
    @_noLocks
    public func framePosition(ofBeat beat: Double) -> Double {
        let segment = beat >= current.anchorBeat ? current : previous
        return Double(segment.anchorFrame) + segment.offset(ofBeat: beat, sampleRate: sampleRate)
    }

    /// Realtime-safe. The least whole number ≥ x (`rounded(.up)` is not realtime-safe); x
    /// itself beyond 2^52, where every Double is whole, and for NaN.
    @_noLocks
    @inline(__always)
    static func ceiling(_ x: Double) -> Double {
        guard Math.magnitudeIsBelow(x, 4_503_599_627_370_496) else { return x }
        let truncated = Double(Int64(x))
        return truncated < x ? truncated + 1 : truncated
    }

    /// Realtime-safe. The greatest whole number ≤ x, as `ceiling` is the least above.
    @_noLocks
    @inline(__always)
    static func floor(_ x: Double) -> Double {
        guard Math.magnitudeIsBelow(x, 4_503_599_627_370_496) else { return x }
        let truncated = Double(Int64(x))
        return truncated > x ? truncated - 1 : truncated
    }

    /// Realtime-safe. `frame − anchor` as a Double, exact below 2^53 frames (over 5,000 years
    /// at 48 kHz), negative for a frame before the anchor.
    @_noLocks
    @inline(__always)
    static func offset(_ frame: UInt64, from anchor: UInt64) -> Double {
        frame >= anchor ? Double(frame &- anchor) : -Double(anchor &- frame)
    }
}
