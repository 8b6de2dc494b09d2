// Following a timeline kept outside paramd (SPEC §14: Link, the JACK transport): each period the
// process callback reads it and the renderer's timeline is set to agree, so the grid, durations
// in musical time and waiting starts all use the outside beat.

extension Renderer {
    /// Beats the renderer's own timeline may stray from an outside reading before it is set
    /// again: a hundredth of a frame at 999 BPM and 192 kHz. Below it the two agree to far
    /// less than a frame, and re-timing every period for clock jitter is avoided.
    @inline(__always) static var followToleranceBeats: Double { 0.01 / 192_000 * 999 / 60 }

    /// Realtime-safe. Makes the timeline say `reading` at `frame` (the period's first). When
    /// it already does (same tempo and bar, beat within `followToleranceBeats`) nothing changes;
    /// otherwise the timeline is set to it, waiting starts in musical time move to the frames
    /// their beats now fall on, and animations in musical time re-time to end on their beats.
    /// A reading that is not finite is ignored.
    @_noLocks
    public mutating func follow(_ reading: TimelineReading, atFrame frame: UInt64) {
        guard reading.tempo.isFinite, reading.beat.isFinite else { return }
        let bpm = Timeline.held(reading.tempo)
        let bar = min(max(reading.beatsPerBar, 1), Timeline.maximumBeatsPerBar)
        let strayBeats = (reading.beat - timeline.beat(at: frame)).magnitude
        if bpm == timeline.tempo(at: frame), bar == timeline.beatsPerBar, strayBeats <= Self.followToleranceBeats { return }
        timeline = Timeline(tempo: bpm, beatsPerBar: bar, sampleRate: sampleRate, beat: reading.beat, atFrame: frame)
        if framedCount > 0 { replaceWaiting(atFrame: frame) }
        retimeMusicalAnimations(atFrame: frame)
    }

    /// Realtime-safe. Re-times every animation given in musical time to the timeline, which
    /// changed at `frame`.
    @_noLocks
    mutating func retimeMusicalAnimations(atFrame frame: UInt64) {
        var n = 0
        while n < ParameterID.builtInCount &+ declaredCount {
            let i = n < ParameterID.builtInCount ? n : declared[n &- ParameterID.builtInCount].index
            n &+= 1
            if params[i].layerCount != 0 { params[i].retimeMusicalLayers(atFrame: frame, timeline: timeline) }
        }
    }
}
