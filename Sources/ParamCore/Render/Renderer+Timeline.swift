/// The timeline on the audio thread (SPEC §14), owned by `TimelineFollower`: at the top of a
/// period it takes the tempo the control side posted, or follows a timeline kept outside
/// paramd (Link, the JACK transport, read by the process callback each period); when it
/// changes, waiting starts in musical time move to the frames their beats now fall on and
/// animations in musical time re-time to end on their beats.
extension Renderer {
    /// Realtime-safe. The period's timeline changes, at its first frame.
    @_noLocks @inline(__always)
    mutating func takeTimelineChanges(atFrame start: UInt64, outside: TimelineReading?) {
        if time.takeRequest(from: tempo, atFrame: start, sampleRate: sampleRate) { timelineChanged(atFrame: start) }
        if let outside { follow(outside, atFrame: start) }
    }

    /// Realtime-safe. Makes the timeline say `reading` at `frame` (the period's first), unless
    /// it already does (`TimelineFollower.follow`). A reading that is not finite is ignored.
    @_noLocks
    public mutating func follow(_ reading: TimelineReading, atFrame frame: UInt64) {
        if time.follow(reading, atFrame: frame, sampleRate: sampleRate) { timelineChanged(atFrame: frame) }
    }

    /// Realtime-safe. What waits and what runs in musical time, after the timeline changed at `frame`.
    @_noLocks
    mutating func timelineChanged(atFrame frame: UInt64) {
        if schedule.framedCount > 0 { schedule.replaceWaiting(atFrame: frame, timeline: timeline) }
        slots.retimeMusicalAnimations(atFrame: frame, timeline: timeline)
    }
}
