/// A command waiting for its frame (or, time-tagged, for the cycle that holds its time).
@usableFromInline
struct ScheduledCommand: BitwiseCopyable {
    var timed: QueuedCommand
    /// The frame it starts on, once known.
    var frame: UInt64
    /// Still a time: converted to a frame in the cycle that holds it.
    var waitsForTime: Bool
    var time: OSCTimeTag
    /// The `delay` after `time`, in whole frames: added once the time is a frame, so commands of
    /// one tag keep their frame distances (a staggered recall) however the tag is placed.
    var delayFrames: UInt64 = 0
    /// Arrival order: commands due on the same frame apply in the order they were sent.
    var sequence: UInt64
    /// Started by the audio thread itself (a MIDI controller, `LocalAnimation`), not sent by
    /// the control side: it keeps the parameter's serial and reports its target back.
    var local = false
    /// Placed in musical time (`BeatPlacement`): the timeline's beat it starts on, so a tempo
    /// change before then moves `frame` with it. NaN: placed in seconds only.
    var beat = Double.nan

    /// Whether it applies before `other`: on an earlier frame, or on the same one sent earlier.
    @_noLocks @inline(__always)
    func precedes(_ other: ScheduledCommand) -> Bool {
        frame < other.frame || (frame == other.frame && sequence < other.sequence)
    }
}

/// The schedule: commands that wait for a later frame or time. Those with a frame are kept
/// sorted by frame, then sequence, at the front of `schedule`, so what is due pops from the
/// front; those waiting for a time sit at its back until the cycle that holds their time.
extension Renderer {
    /// Commands waiting, of both kinds.
    @usableFromInline var scheduled: Int { framedCount &+ timedCount }

    /// Realtime-safe. Takes the new commands from the ring in arrival order: what is due at the
    /// first frame of this period applies at once; what waits (a delay, a later time) goes
    /// into the schedule.
    @_noLocks
    mutating func drainCommands(periodStart: UInt64, periodEnd: UInt64) {
        while let timed = commands.pop() {
            var entry = ScheduledCommand(timed: timed, frame: periodStart, waitsForTime: false, time: 0, sequence: sequence)
            sequence &+= 1
            let delay = timed.delaySeconds
            switch timed.start {
            case .immediately:
                entry.frame = periodStart &+ UInt64(Animation.frames(delay, sampleRate: sampleRate))
                if !timed.placement.isNone { place(&entry) }
            case .at(let tag):
                entry.waitsForTime = true
                entry.time = tag
                entry.delayFrames = UInt64(Animation.frames(delay, sampleRate: sampleRate))
                resolveTime(&entry, periodStart: periodStart, periodEnd: periodEnd)
            }
            if !entry.waitsForTime && entry.frame <= periodStart {
                apply(entry, atFrame: periodStart)
                continue
            }
            guard scheduled < Self.scheduleCapacity else {
                // The control side checks the room first; this is the last line of defence.
                counters.add(.scheduleFull, 1)
                let p = timed.parameter
                reporter.done(p, finished: false, value: params[p.index].value, tag: self.tag(of: timed), group: Self.group(of: timed))
                if case .keyframes(_, let slot) = timed.payload { commands.release(slot) }
                continue
            }
            if entry.waitsForTime { appendTimed(entry) } else { insertFramed(entry) }
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
            var entry = ScheduledCommand(timed: timed, frame: frame, waitsForTime: false, time: 0, sequence: sequence, local: true)
            sequence &+= 1
            if frame <= periodStart || scheduled >= Self.scheduleCapacity {
                entry.frame = periodStart
                apply(entry, atFrame: periodStart)
                continue
            }
            insertFramed(entry)
        }
    }

    /// Realtime-safe. Turns one waiting time into a frame if it falls before the end of this
    /// cycle (with this cycle's clock); a time already past starts at once, counted as late.
    @_noLocks @inline(__always)
    mutating func resolveTime(_ entry: inout ScheduledCommand, periodStart: UInt64, periodEnd: UInt64) {
        guard entry.waitsForTime else { return }
        guard clock.isValid else {
            // No JACK clock (tests without one): start at once.
            entry.frame = periodStart
            entry.waitsForTime = false
            if !entry.timed.placement.isNone { place(&entry) }
            return
        }
        // Placed in the cycle that holds the tag itself, delay or not: commands of one tag are
        // placed together, on one anchor, and keep their frame distances.
        let tagFrame = clock.frame(at: entry.time)
        if tagFrame < Int64(bitPattern: periodEnd) {
            let frame = tagFrame &+ Int64(bitPattern: entry.delayFrames)
            if frame < Int64(bitPattern: periodStart) {
                counters.add(.late, 1)
                entry.frame = periodStart
            } else {
                entry.frame = UInt64(bitPattern: frame)
            }
            entry.waitsForTime = false
            // Tags close to this one keep this anchor, so their distances stay exact.
            clock.hold(placedAt: tagFrame < Int64(bitPattern: periodStart) ? periodStart : UInt64(bitPattern: tagFrame))
            if !entry.timed.placement.isNone { place(&entry) }
        }
    }

    /// Realtime-safe. Resolves the waiting times that fall before the end of this cycle, and
    /// moves those into the frames' order.
    @_noLocks
    mutating func resolveTimes(periodStart: UInt64, periodEnd: UInt64) {
        var i = 0
        while i < timedCount {
            let index = Self.scheduleCapacity &- 1 &- i
            resolveTime(&schedule[index], periodStart: periodStart, periodEnd: periodEnd)
            if schedule[index].waitsForTime {
                i &+= 1
            } else {
                let entry = schedule[index]
                removeTimed(at: i)
                insertFramed(entry)
            }
        }
    }

    /// Realtime-safe. The earliest frame a scheduled command is due on, or `limit`.
    @_noLocks @inline(__always)
    func nextDueFrame(before limit: UInt64) -> UInt64 {
        framedCount > 0 && schedule[0].frame < limit ? schedule[0].frame : limit
    }

    /// Realtime-safe. Applies every command due at or before `frame`, in arrival order.
    @_noLocks
    mutating func applyDue(atFrame frame: UInt64) {
        if framedCount > 0 && schedule[0].frame < frame { catchUpOverdue(to: frame) }
        while framedCount > 0 && schedule[0].frame <= frame {
            let entry = schedule[0]
            removeFramed(at: 0)
            apply(entry, atFrame: frame)
        }
    }

    /// Realtime-safe. Commands whose frame passed unrendered (the clock skipped frames JACK ran
    /// without this client) are due now, with those due on `frame`, in arrival order.
    @_noLocks
    mutating func catchUpOverdue(to frame: UInt64) {
        var due = 0
        while due < framedCount && schedule[due].frame <= frame {
            schedule[due].frame = frame
            due &+= 1
        }
        var i = 1
        while i < due {  // insertion sort by sequence: rare, and few
            let entry = schedule[i]
            var k = i
            while k > 0 && entry.sequence < schedule[k &- 1].sequence {
                schedule[k] = schedule[k &- 1]
                k &-= 1
            }
            schedule[k] = entry
            i &+= 1
        }
    }

    /// Realtime-safe. Into the sorted front, after every entry that precedes it.
    @_noLocks @inline(__always)
    mutating func insertFramed(_ entry: ScheduledCommand) {
        var k = framedCount
        while k > 0 && entry.precedes(schedule[k &- 1]) {
            schedule[k] = schedule[k &- 1]
            k &-= 1
        }
        schedule[k] = entry
        framedCount &+= 1
    }

    @_noLocks @inline(__always)
    mutating func removeFramed(at index: Int) {
        framedCount &-= 1
        var k = index
        while k < framedCount {
            schedule[k] = schedule[k &+ 1]
            k &+= 1
        }
    }

    /// Realtime-safe. The `n`th entry waiting for a time sits at `scheduleCapacity - 1 - n`.
    @_noLocks @inline(__always)
    mutating func appendTimed(_ entry: ScheduledCommand) {
        schedule[Self.scheduleCapacity &- 1 &- timedCount] = entry
        timedCount &+= 1
    }

    @_noLocks @inline(__always)
    mutating func removeTimed(at n: Int) {
        timedCount &-= 1
        if n != timedCount { schedule[Self.scheduleCapacity &- 1 &- n] = schedule[Self.scheduleCapacity &- 1 &- timedCount] }
    }

    /// Realtime-safe. The `n`th waiting command, those with a frame first.
    @_noLocks @inline(__always)
    func scheduledEntry(_ n: Int) -> ScheduledCommand {
        n < framedCount ? schedule[n] : schedule[Self.scheduleCapacity &- 1 &- (n &- framedCount)]
    }

    /// Realtime-safe. Removes the `n`th waiting command (numbered as `scheduledEntry`).
    @_noLocks @inline(__always)
    mutating func removeScheduled(_ n: Int) {
        if n < framedCount { removeFramed(at: n) } else { removeTimed(at: n &- framedCount) }
    }

    /// Realtime-safe. Starts one command on `frame`.
    @_noLocks
    mutating func apply(_ entry: ScheduledCommand, atFrame frame: UInt64) {
        counters.add(.commands, 1)
        let rate = sampleRate
        let serial = entry.timed.serial
        // A message for a bound parameter takes it from the morph first (SPEC §13); it then
        // starts from what it sounds.
        if boundCount > 0 {
            switch entry.timed.payload {
            case .bind, .modulate, .modulateDepth, .stopModulator: break  // a layer over the binding
            case .unbind(let p): unbind(p, report: true, serial: serial)
            default: unbind(entry.timed.parameter, report: false, serial: serial)
            }
        }
        switch entry.timed.payload {
        case .animate(let p, let spec):
            if entry.local {
                // The parameter keeps the serial of the last command the control side sent, so
                // the control side adopts this target unless a newer command is on its way.
                guard isRendered(p) else { return }
                params[p.index].start(spec, atFrame: frame, sampleRate: rate, serial: params[p.index].serial, reporter: reporter)
                localTargets.insert(p.index)
            } else {
                startAnimation(p, spec, atFrame: frame, serial: serial)
                // A member in musical time evaluates its own curve: a tempo change re-times it.
                if spec.group != 0 && !(spec.beats > 0) { joinGroup(p, spec) }
            }
        case .keyframes(let p, let slot):
            startKeyframes(p, slot: slot, atFrame: frame, serial: serial)
            commands.release(slot)
        case .stop(let p):
            cancelScheduled(p, sentBefore: entry.sequence)
            params[p.index].stop(atFrame: frame, serial: serial, reporter: reporter)
        case .declare(let p, let setup):
            declare(p, setup, atFrame: frame)
        case .undeclare(let p):
            undeclare(p, atFrame: frame)
        case .bind(let p, let binding):
            bind(p, binding, atFrame: frame, serial: serial)
        case .unbind:
            break  // unbound above, if it was bound
        case .modulate(let p, let spec):
            modulate(p, spec, atFrame: frame, serial: serial)
        case .modulateDepth(let p, let spec):
            modulateDepth(p, spec, atFrame: frame, serial: serial)
        case .stopModulator(let p, let seconds):
            stopModulator(p, fadeSeconds: seconds, atFrame: frame, serial: serial)
        }
    }

    /// Realtime-safe. A stop: the animations of `p` sent before it and still waiting end too,
    /// each reported in arrival order.
    @_noLocks
    mutating func cancelScheduled(_ p: ParameterID, sentBefore sequence: UInt64) {
        while true {
            var pick = -1
            var n = 0
            while n < scheduled {
                let waiting = scheduledEntry(n)
                if waiting.timed.parameter == p && waiting.sequence < sequence
                    && (pick < 0 || waiting.sequence < scheduledEntry(pick).sequence) {
                    pick = n
                }
                n &+= 1
            }
            if pick < 0 { return }
            let cancelled = scheduledEntry(pick).timed
            removeScheduled(pick)
            switch cancelled.payload {
            case .animate, .keyframes:
                reporter.done(p, finished: false, value: params[p.index].value, tag: self.tag(of: cancelled),
                              group: Self.group(of: cancelled))
                if case .keyframes(_, let slot) = cancelled.payload { commands.release(slot) }
            case .stop, .declare, .undeclare, .bind, .unbind, .modulate, .modulateDepth, .stopModulator: break
            }
        }
    }

    /// Realtime-safe. The `id` option of an animation command (its keyframes read in place).
    @_noLocks @inline(__always)
    func tag(of command: QueuedCommand) -> Int32? {
        switch command.payload {
        case .animate(_, let s): s.tag
        case .keyframes(_, let slot): commands.keyframes(slot).pointee.tag
        case .stop, .declare, .undeclare, .bind, .unbind, .modulate, .modulateDepth, .stopModulator: nil
        }
    }

    /// Realtime-safe. The scene recall an animation command is a member of (0: none).
    @_noLocks @inline(__always)
    static func group(of command: QueuedCommand) -> UInt32 {
        if case .animate(_, let s) = command.payload { return s.group }
        return 0
    }
}
