/// The renderer's timeline (SPEC §14), counting beats from the first frame rendered: it takes
/// the tempo the control side posts, follows a timeline kept outside paramd (Link, the JACK
/// transport), places starts on beats and grid lines and gives beats their frames. Owned by
/// the audio thread; when it changes, the renderer moves what waits and re-times what runs.
@usableFromInline
struct TimelineFollower: BitwiseCopyable {
    @usableFromInline var timeline: Timeline
    /// The sequence of the last tempo request taken from the `TempoExchange`.
    @usableFromInline var tempoSequence: UInt64

    /// Beats the timeline may stray from an outside reading before it is set again: a
    /// hundredth of a frame at 999 BPM and 192 kHz. Below it the two agree to far less than a
    /// frame, and re-timing every period for clock jitter is avoided.
    @inline(__always) static var followToleranceBeats: Double { 0.01 / 192_000 * 999 / 60 }

    /// Control thread.
    init(tempo: TempoExchange, sampleRate: Double) {
        timeline = Timeline(tempo: tempo.requestedBPM, beatsPerBar: tempo.beatsPerBar, sampleRate: sampleRate, originFrame: 0)
        tempoSequence = tempo.sequence
    }

    /// Realtime-safe. Takes the tempo the control side posted in `tempo`, if a new one, on
    /// `frame` (the period's first). Whether the timeline changed.
    @_noLocks
    mutating func takeRequest(from tempo: TempoExchange, atFrame frame: UInt64, sampleRate: Double) -> Bool {
        guard tempo.sequence != tempoSequence, let request = tempo.request(after: tempoSequence) else { return false }
        tempoSequence = request.sequence
        let glide = Animation.frames(request.glideSeconds, sampleRate: sampleRate)
        timeline.setTempo(request.bpm, atFrame: frame, glideFrames: UInt64(glide))
        return true
    }

    /// Realtime-safe. Makes the timeline say `reading` at `frame` (the period's first). When it
    /// already does (same tempo and bar, beat within `followToleranceBeats`) nothing changes;
    /// a reading that is not finite is ignored. Whether the timeline changed.
    @_noLocks
    mutating func follow(_ reading: TimelineReading, atFrame frame: UInt64, sampleRate: Double) -> Bool {
        guard reading.tempo.isFinite, reading.beat.isFinite else { return false }
        let bpm = Timeline.held(reading.tempo)
        let bar = min(max(reading.beatsPerBar, 1), Timeline.maximumBeatsPerBar)
        let strayBeats = (reading.beat - timeline.beat(at: frame)).magnitude
        if bpm == timeline.tempo(at: frame), bar == timeline.beatsPerBar, strayBeats <= Self.followToleranceBeats { return false }
        timeline = Timeline(tempo: bpm, beatsPerBar: bar, sampleRate: sampleRate, beat: reading.beat, atFrame: frame)
        return true
    }

    /// Realtime-safe. A new sample rate from `frame` on: the timeline goes on from the beat and
    /// tempo it has there (a glide in progress ends there).
    @_noLocks
    mutating func retime(sampleRate rate: Double, atFrame frame: UInt64) {
        timeline = Timeline(tempo: timeline.tempo(at: frame), beatsPerBar: timeline.beatsPerBar, sampleRate: rate,
                            beat: timeline.beat(at: frame), atFrame: frame)
    }

    /// Realtime-safe. Moves a command whose start in seconds is `entry.frame` to where its
    /// placement in musical time puts it: `delayBeats` later on the timeline, then on the next
    /// grid line at or after that; the beat it starts on is kept for a tempo change.
    @_noLocks
    func place(_ entry: inout ScheduledCommand) {
        let placement = entry.timed.placement
        var beat = timeline.beat(at: entry.frame)
        if placement.delayBeats > 0 { beat += placement.delayBeats }
        var at = timeline.firstFrame(reachingBeat: beat, notBefore: entry.frame)
        if placement.gridBeats > 0 {
            beat = timeline.nextGridBeat(atOrAfter: at, gridBeats: placement.gridBeats)
            at = timeline.firstFrame(reachingBeat: beat, notBefore: at)
        }
        entry.frame = at
        entry.beat = beat
    }

    /// Realtime-safe. Frames of `beats` from `frame` on the timeline, to the nearest frame,
    /// as seconds at `sampleRate` (which `Animation` turns back into exactly those frames).
    @_noLocks
    func secondsOver(beats: Double, from frame: UInt64, sampleRate: Double) -> Double {
        let frames = timeline.frames(overBeats: beats, from: frame)
        let whole = frames >= 0.5 ? Double(Int64(frames + 0.5)) : 0
        return whole / sampleRate
    }
}
