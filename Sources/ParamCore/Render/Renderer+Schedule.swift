/// Commands into the schedule (`Schedule`): each period takes what waited and is due, then the
/// new commands from the ring in arrival order, then the animations the audio thread starts
/// itself (MIDI); each starts on its frame (Renderer+Starting), splitting the period there.
extension Renderer {
    /// Realtime-safe. The period's commands, at its top: what waited and is due now goes
    /// first, then the new commands in arrival order, then local animations.
    @_noLocks @inline(__always)
    mutating func takeCommands(periodStart start: UInt64, periodEnd end: UInt64,
                               local: UnsafePointer<LocalAnimation>?, localCount: Int) {
        if !schedule.isEmpty {
            schedule.resolveTimes(periodStart: start, periodEnd: end, timeline: time, counters: counters)
            applyDue(atFrame: start)
        }
        if commands.count != 0 { drainCommands(periodStart: start, periodEnd: end) }  // its code stays cold while none come
        if let local, localCount > 0 { scheduleLocal(local, count: localCount, periodStart: start, periodEnd: end) }
    }

    /// Realtime-safe. Takes the new commands from the ring in arrival order: what is due at the
    /// first frame of this period applies at once; what waits (a delay, a later time) goes
    /// into the schedule.
    @_noLocks
    mutating func drainCommands(periodStart: UInt64, periodEnd: UInt64) {
        while let timed = commands.pop() {
            var entry = ScheduledCommand(timed: timed, frame: periodStart, waitsForTime: false, time: 0, sequence: schedule.nextSequence())
            let delay = timed.delaySeconds
            switch timed.start {
            case .immediately:
                entry.frame = periodStart &+ UInt64(Animation.frames(delay, sampleRate: sampleRate))
                if !timed.placement.isNone { time.place(&entry) }
            case .at(let tag):
                entry.waitsForTime = true
                entry.time = tag
                entry.delayFrames = UInt64(Animation.frames(delay, sampleRate: sampleRate))
                schedule.resolveTime(&entry, periodStart: periodStart, periodEnd: periodEnd, timeline: time, counters: counters)
            case .timecode(let cue):
                guard cue.epoch == schedule.timecode.epoch else {  // sent before a locate it had not heard of
                    dropCue(timed)
                    continue
                }
                entry.waitsForTime = true
                entry.delayFrames = UInt64(Animation.frames(delay, sampleRate: sampleRate))
                schedule.resolveTime(&entry, periodStart: periodStart, periodEnd: periodEnd, timeline: time, counters: counters)
            }
            if !entry.waitsForTime && entry.frame <= periodStart {
                apply(entry, atFrame: periodStart)
                continue
            }
            guard !schedule.isFull else {
                // The control side checks the room first; this is the last line of defence.
                counters.add(.scheduleFull, 1)
                let p = timed.parameter
                reporter.done(p, finished: false, value: params[p.index].value, tag: self.tag(of: timed), group: Self.group(of: timed))
                if let slot = timed.payload.keyframeTrack { commands.release(slot) }
                continue
            }
            if entry.waitsForTime { schedule.appendTimed(entry) } else { schedule.insertFramed(entry) }
        }
    }

    /// Realtime-safe. Animations the audio thread starts itself (MIDI, SPEC §10), each at frame
    /// `offset` of this period: after the commands drained from the ring (so a controller moved
    /// in this period wins over a message that arrived before it), in the schedule like any
    /// command due mid-period. With the schedule full, one starts at once rather than never.
    @_noLocks
    mutating func scheduleLocal(_ local: UnsafePointer<LocalAnimation>, count: Int, periodStart: UInt64, periodEnd: UInt64) {
        var i = 0
        while i < count {
            let animation = local[i]
            i &+= 1
            let offset = animation.offset < 0 ? 0 : animation.offset
            var frame = periodStart &+ UInt64(offset)
            if frame >= periodEnd { frame = periodEnd &- 1 }
            let timed = QueuedCommand(payload: .animate(animation.parameter, animation.spec), start: .immediately,
                                      delaySeconds: 0, serial: 0)
            var entry = ScheduledCommand(timed: timed, frame: frame, waitsForTime: false, time: 0, sequence: schedule.nextSequence(),
                                         local: true)
            if frame <= periodStart || schedule.isFull {
                entry.frame = periodStart
                apply(entry, atFrame: periodStart)
                continue
            }
            schedule.insertFramed(entry)
        }
    }

    /// Realtime-safe. Applies every command due at or before `frame`, in arrival order.
    @_noLocks
    mutating func applyDue(atFrame frame: UInt64) {
        schedule.catchUpOverdue(to: frame)
        while let entry = schedule.popDue(atFrame: frame) {
            apply(entry, atFrame: frame)
        }
    }

    /// Realtime-safe. A stop: the animations of `p` sent before it and still waiting end too,
    /// each reported in arrival order.
    @_noLocks
    mutating func cancelScheduled(_ p: ParameterID, sentBefore sequence: UInt64) {
        while let cancelled = schedule.removeFirstSent(for: p, before: sequence) {
            guard cancelled.payload.startsAnimation else { continue }
            reporter.done(p, finished: false, value: params[p.index].value, tag: self.tag(of: cancelled), group: Self.group(of: cancelled))
            if let slot = cancelled.payload.keyframeTrack { commands.release(slot) }
        }
    }

    /// Realtime-safe. The `id` option of an animation command (its keyframes read in place).
    @_noLocks @inline(__always)
    func tag(of command: QueuedCommand) -> Int32? {
        if let spec = command.payload.animation { return spec.tag }
        if let slot = command.payload.keyframeTrack { return commands.keyframes(slot).pointee.tag }
        return nil
    }

    /// Realtime-safe. The scene recall an animation command is a member of, as `done` carries
    /// it (0: none).
    @_noLocks @inline(__always)
    static func group(of command: QueuedCommand) -> UInt32 { command.payload.animation?.group ?? 0 }
}
