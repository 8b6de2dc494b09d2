/// The timecode on the audio side (SPEC §18): the points heard this period move the timecode
/// clock before any command is placed, so a cue on a frame heard in this period starts on it.
/// A locate drops the cues sent before it (each reported as not finished, as a cancelled
/// command is); the control side sends what the new position needs.
extension Renderer {
    /// Realtime-safe. The points heard in the period starting on renderer frame `start`. `moved`:
    /// how far `JackFrameFollower` moved the renderer's frames at this period's top (a skip
    /// taken, or frames taken back); `pending`: the skip it still waits to confirm. While one
    /// waits, the points are kept (`DeferredTimecodePoints`) and heard once it is settled.
    @_noLocks
    mutating func hearTimecode(_ points: TimecodeObservations, periodStart start: UInt64, moved: Int64, pending: Int64) {
        var located = false
        // Points kept from periods that waited on a skip, first: heard where it put them.
        if pending == 0 || moved != 0 {
            var k = 0
            while k < schedule.timecode.deferred.count {
                let kept = schedule.timecode.deferred.entries[k]
                let frame = kept.frame + Double(DeferredTimecodePoints.shift(pending: kept.pending, moved: moved))
                if schedule.timecode.hear(kept.point, atFrame: frame, sampleRate: sampleRate) { located = true }
                k &+= 1
            }
            schedule.timecode.deferred.clear()
        }
        var i = 0
        let count = points.count
        while i < count {
            let point = points[i]
            i &+= 1
            let frame = Double(start) + Double(point.offset)
            if pending != 0 {
                schedule.timecode.deferred.keep(point, atFrame: frame, pending: pending)
            } else if schedule.timecode.hear(point, atFrame: frame, sampleRate: sampleRate) {
                located = true
            }
        }
        if located { dropStaleCues() }
    }

    /// Realtime-safe. Cues waiting from before the last locate go.
    @_noLocks
    mutating func dropStaleCues() {
        while let stale = schedule.removeStaleCue() { dropCue(stale) }
    }

    /// Realtime-safe. One cue's command that will not start (only animations, keyframes and stops
    /// are sent ahead): reported as a cancelled one is, and the target it set handed back, so the
    /// control side's model follows what sounds.
    @_noLocks
    mutating func dropCue(_ command: QueuedCommand) {
        let p = command.parameter
        if command.payload.startsAnimation {
            reporter.done(p, finished: false, value: params[p.index].value, tag: tag(of: command), group: Self.group(of: command))
        }
        reporter.targetMoved(p, to: params[p.index].target, serial: command.serial)
        if let slot = command.payload.keyframeTrack { commands.release(slot) }
    }

    /// Realtime-safe. At the period's end: freewheel, the horizon, the published state.
    @_noLocks @inline(__always)
    mutating func endTimecodePeriod(atFrame end: UInt64) {
        if schedule.timecode.exchange.source != .off { schedule.timecode.endPeriod(atFrame: Double(end), sampleRate: sampleRate) }
    }

    /// What the timecode clock reported (the control side drains it through `RendererHandles`).
    public var timecodeReports: SPSCRing<TimecodeReport> { @_noLocks get { schedule.timecode.reports } }

    /// Realtime-safe. Whether reports wait: the process callback then wakes the control thread.
    public var timecodeReported: Bool { @_noLocks get { schedule.timecode.reports.count != 0 } }
}
