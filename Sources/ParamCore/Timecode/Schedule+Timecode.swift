/// Commands waiting for a timecode (SPEC §18): each is placed on the frame its timecode frame
/// begins on, as the timecode clock draws it, once that frame comes before the end of this
/// cycle. One whose frame has passed (the timecode jumped past it and the control side joined
/// it in the middle) starts now as if it had started there: `time` keeps that frame (`begun`).
extension Schedule {
    @_noLocks @inline(__always)
    mutating func resolveTimecode(_ entry: inout ScheduledCommand, _ cue: TimecodeCue, periodStart: UInt64, periodEnd: UInt64,
                                  timeline: TimelineFollower) {
        guard cue.epoch == timecode.epoch, let rate = timecode.rate, cue.label.isInRange(rate: rate),
              let begins = timecode.frame(ofNumber: Double(cue.label.frameNumber(rate: rate))) else { return }
        let first = begins + 0.5 + Double(entry.delayFrames)  // to the nearest frame, as `begun` truncates
        guard first < Double(periodEnd) + 0.5, first < 9e15 else { return }
        let begun = first < 1 ? 0 : UInt64(first)
        guard begun < periodEnd else { return }
        entry.time = begun
        entry.frame = max(begun, periodStart)
        entry.waitsForTime = false
        if !entry.timed.placement.isNone {
            timeline.place(&entry)
            entry.time = entry.frame  // moved onto the grid: it starts there, not joined
        }
    }

    /// Realtime-safe. Removes and returns the first waiting command sent before the last locate
    /// (the control side sends again what the new position needs), or nil.
    @_noLocks
    mutating func removeStaleCue() -> QueuedCommand? {
        var i = 0
        while i < timedCount {
            let entry = entries[Self.capacity &- 1 &- i]
            if let cue = entry.timed.start.timecodeCue, cue.epoch != timecode.epoch {
                removeTimed(at: i)
                return entry.timed
            }
            i &+= 1
        }
        return nil
    }
}
