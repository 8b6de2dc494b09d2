/// The timecode on the audio side (SPEC §18): the points heard this period move the timecode
/// clock before any command is placed, so a cue on a frame heard in this period starts on it.
/// A locate drops the cues sent before it (each reported as not finished, as a cancelled
/// command is); the control side sends what the new position needs.
extension Renderer {
    /// Realtime-safe. The points heard in the period starting on renderer frame `start`.
    @_noLocks
    mutating func hearTimecode(_ points: TimecodeObservations, periodStart start: UInt64) {
        var located = false
        var i = 0
        let count = points.count
        while i < count {
            let point = points[i]
            i &+= 1
            if schedule.timecode.hear(point, atFrame: Double(start) + Double(point.offset), sampleRate: sampleRate) { located = true }
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
