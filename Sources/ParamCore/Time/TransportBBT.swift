/// The JACK transport's bar/beat/tick as a timebase master gives it (`jack_position_t`'s BBT
/// fields, SPEC §14 `transport = "jack"`), in plain Swift so that the checks and the arithmetic
/// are tested without JACK. The daemon copies the fields in each period (Jack/TransportReading).
/// JACK counts bars and beats from 1; a beat is one of `beatType` (an eighth in 6/8), and
/// paramd's beat is the master's beat.
public struct TransportBBT: Equatable, Sendable, BitwiseCopyable {
    public var bar: Int32
    public var beat: Int32
    public var tick: Int32
    /// `tick_double` when the master sets `JackTickDouble`; NaN when only whole ticks are given.
    public var tickDouble: Double
    public var beatsPerBar: Float
    public var beatType: Float
    public var ticksPerBeat: Double
    public var beatsPerMinute: Double
    /// `bbt_offset` when `JackBBTFrameOffset` is set: the BBT holds this many frames before the
    /// cycle's first frame; else 0.
    public var offsetFrames: UInt32

    @_noLocks
    public init(bar: Int32, beat: Int32, tick: Int32, tickDouble: Double = .nan, beatsPerBar: Float, beatType: Float,
                ticksPerBeat: Double, beatsPerMinute: Double, offsetFrames: UInt32 = 0) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.tickDouble = tickDouble
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerMinute = beatsPerMinute
        self.offsetFrames = offsetFrames
    }

    /// Realtime-safe. Beats since 1|1|0 at the cycle's first frame, the tempo and the bar
    /// (`beatsPerBar` rounded; the beat count uses it as given); nil when a field is not one a
    /// timebase master can mean: not finite, a tempo outside 20…999 BPM (paramd's range), a bar
    /// outside 1…64 beats, no ticks per beat, a bar or beat before 1, a beat past the bar, a tick
    /// outside the beat.
    @_noLocks
    public func reading(sampleRate: Double) -> TimelineReading? {
        guard sampleRate > 0, sampleRate.isFinite else { return nil }
        guard beatsPerMinute >= Timeline.minimumTempo, beatsPerMinute <= Timeline.maximumTempo else { return nil }
        guard ticksPerBeat.isFinite, ticksPerBeat >= 1 else { return nil }
        guard beatType.isFinite, beatType > 0 else { return nil }
        let perBar = Double(beatsPerBar)
        guard perBar.isFinite, perBar >= 1, perBar <= Double(Timeline.maximumBeatsPerBar) else { return nil }
        guard bar >= 1, beat >= 1, Double(beat) < perBar + 1 else { return nil }
        let ticks = tickDouble.isNaN ? Double(tick) : tickDouble
        guard ticks.isFinite, ticks >= 0, ticks < ticksPerBeat else { return nil }
        let offsetBeats = Double(offsetFrames) * beatsPerMinute / (60 * sampleRate)
        let beats = Double(bar - 1) * perBar + Double(beat - 1) + ticks / ticksPerBeat + offsetBeats
        let whole = Int(perBar + 0.5)  // rounded; perBar ≥ 1 here
        return TimelineReading(tempo: beatsPerMinute, beat: beats, beatsPerBar: max(whole, 1))
    }

    /// Realtime-safe. How finely the beat is given: one tick when only whole ticks are (the true
    /// beat lies within the tick after the one given), none with `tick_double`.
    public var resolutionBeats: Double { @_noLocks get { tickDouble.isNaN ? 1 / ticksPerBeat : 0 } }
}
