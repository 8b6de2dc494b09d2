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
    /// change before then moves `frame` with it. nil: placed in seconds only.
    var beat: Double? = nil

    /// Whether it applies before `other`: on an earlier frame, or on the same one sent earlier.
    @_noLocks @inline(__always)
    func precedes(_ other: ScheduledCommand) -> Bool {
        frame < other.frame || (frame == other.frame && sequence < other.sequence)
    }
}

/// The schedule: commands that wait for a later frame or time, and the clock that turns times
/// into frames. Those with a frame are kept sorted by frame, then sequence, at the front of
/// `entries`, so what is due pops from the front; those waiting for a time sit at its back
/// (the `n`th at `capacity - 1 - n`) until the cycle that holds their time. Owned by the
/// audio thread; `entries` is allocated on the control thread.
@usableFromInline
struct Schedule {
    /// Commands that can wait for their frame at once (delays, future time tags).
    @usableFromInline static var capacity: Int { 256 }

    @usableFromInline let entries: UnsafeMutablePointer<ScheduledCommand>
    @usableFromInline var framedCount = 0
    @usableFromInline var timedCount = 0
    /// The next arrival's sequence number.
    @usableFromInline var sequence: UInt64 = 0
    /// Places time tags on frames (SPEC §4.6), re-anchored every cycle.
    @usableFromInline var clock = FrameClock()
    /// Places timecodes on frames (SPEC §18).
    var timecode: TimecodeClock

    /// Control thread.
    init(timecode exchange: TimecodeExchange) {
        entries = Resident.allocate(ScheduledCommand.self, capacity: Self.capacity)
        timecode = TimecodeClock(exchange: exchange)
    }

    /// Control thread, once the audio thread has stopped.
    func deallocate() {
        entries.deallocate()
        timecode.deallocate()
    }

    /// Commands waiting, of both kinds.
    @usableFromInline var count: Int { framedCount &+ timedCount }
    @inline(__always) var isFull: Bool { count >= Self.capacity }
    @inline(__always) var isEmpty: Bool { framedCount | timedCount == 0 }

    /// Realtime-safe. The next sequence number, in arrival order.
    @_noLocks @inline(__always)
    mutating func nextSequence() -> UInt64 {
        defer { sequence &+= 1 }
        return sequence
    }

    /// Realtime-safe. The earliest frame a command is due on, or `limit`.
    @_noLocks @inline(__always)
    func nextDueFrame(before limit: UInt64) -> UInt64 {
        framedCount > 0 && entries[0].frame < limit ? entries[0].frame : limit
    }

    /// Realtime-safe. Removes and returns the first command due at or before `frame`; commands
    /// whose frame passed unrendered are due on `frame`, in arrival order (`catchUpOverdue`).
    @_noLocks @inline(__always)
    mutating func popDue(atFrame frame: UInt64) -> ScheduledCommand? {
        guard framedCount > 0 && entries[0].frame <= frame else { return nil }
        let entry = entries[0]
        removeFramed(at: 0)
        return entry
    }

    /// Realtime-safe. Commands whose frame passed unrendered (the clock skipped frames JACK ran
    /// without this client) are due now, with those due on `frame`, in arrival order.
    @_noLocks
    mutating func catchUpOverdue(to frame: UInt64) {
        guard framedCount > 0 && entries[0].frame < frame else { return }
        var due = 0
        while due < framedCount && entries[due].frame <= frame {
            entries[due].frame = frame
            due &+= 1
        }
        sortFront(due)  // all on one frame now: by sequence; rare, and few
    }

    /// Realtime-safe. The first `n` entries in order (`precedes`), by insertion: few entries,
    /// most already in order.
    @_noLocks
    mutating func sortFront(_ n: Int) {
        var i = 1
        while i < n {
            settle(entries[i], from: i)
            i &+= 1
        }
    }

    /// Realtime-safe. Into the sorted front, after every entry that precedes it.
    @_noLocks @inline(__always)
    mutating func insertFramed(_ entry: ScheduledCommand) {
        settle(entry, from: framedCount)
        framedCount &+= 1
    }

    /// Realtime-safe. One insertion step: `entry`, free to go at `index`, moves down past the
    /// sorted entries below it that it precedes.
    @_noLocks @inline(__always)
    mutating func settle(_ entry: ScheduledCommand, from index: Int) {
        var k = index
        while k > 0 && entry.precedes(entries[k &- 1]) {
            entries[k] = entries[k &- 1]
            k &-= 1
        }
        entries[k] = entry
    }

    @_noLocks @inline(__always)
    mutating func removeFramed(at index: Int) {
        framedCount &-= 1
        var k = index
        while k < framedCount {
            entries[k] = entries[k &+ 1]
            k &+= 1
        }
    }

    /// Realtime-safe. The `n`th entry waiting for a time sits at `capacity - 1 - n`.
    @_noLocks @inline(__always)
    mutating func appendTimed(_ entry: ScheduledCommand) {
        entries[Self.capacity &- 1 &- timedCount] = entry
        timedCount &+= 1
    }

    @_noLocks @inline(__always)
    mutating func removeTimed(at n: Int) {
        timedCount &-= 1
        if n != timedCount { entries[Self.capacity &- 1 &- n] = entries[Self.capacity &- 1 &- timedCount] }
    }

    /// Realtime-safe. The `n`th waiting command, those with a frame first.
    @_noLocks @inline(__always)
    func entry(_ n: Int) -> ScheduledCommand {
        n < framedCount ? entries[n] : entries[Self.capacity &- 1 &- (n &- framedCount)]
    }

    /// Realtime-safe. Removes the `n`th waiting command (numbered as `entry`).
    @_noLocks @inline(__always)
    mutating func remove(_ n: Int) {
        if n < framedCount { removeFramed(at: n) } else { removeTimed(at: n &- framedCount) }
    }

    /// Realtime-safe. Removes and returns the earliest-sent waiting command for `p` sent
    /// before `sequence` (a stop cancels them in arrival order), or nil.
    @_noLocks
    mutating func removeFirstSent(for p: ParameterID, before sequence: UInt64) -> QueuedCommand? {
        var pick = -1
        var n = 0
        while n < count {
            let waiting = entry(n)
            // A take's cue is the take's, not the parameter's: a stop leaves it (SPEC §17).
            if waiting.timed.parameter == p && waiting.sequence < sequence && !waiting.timed.payload.isTakeCue
                && (pick < 0 || waiting.sequence < entry(pick).sequence) {
                pick = n
            }
            n &+= 1
        }
        if pick < 0 { return nil }
        let cancelled = entry(pick).timed
        remove(pick)
        return cancelled
    }

    /// Realtime-safe. Turns one waiting time into a frame if it falls before the end of this
    /// cycle (with this cycle's clock); a time already past starts at once, counted as late.
    /// Its placement in musical time then moves it on `timeline`.
    @_noLocks @inline(__always)
    mutating func resolveTime(_ entry: inout ScheduledCommand, periodStart: UInt64, periodEnd: UInt64,
                              timeline: TimelineFollower, counters: RenderCounters) {
        guard entry.waitsForTime else { return }
        if let cue = entry.timed.start.timecodeCue { return resolveTimecode(&entry, cue, periodStart: periodStart, periodEnd: periodEnd, timeline: timeline) }
        guard clock.isValid else {
            // No JACK clock (tests without one): start at once.
            entry.frame = periodStart
            entry.waitsForTime = false
            if !entry.timed.placement.isNone { timeline.place(&entry) }
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
            if !entry.timed.placement.isNone { timeline.place(&entry) }
        }
    }

    /// Realtime-safe. Resolves the waiting times that fall before the end of this cycle, and
    /// moves those into the frames' order.
    @_noLocks
    mutating func resolveTimes(periodStart: UInt64, periodEnd: UInt64, timeline: TimelineFollower, counters: RenderCounters) {
        var i = 0
        while i < timedCount {
            let index = Self.capacity &- 1 &- i
            resolveTime(&entries[index], periodStart: periodStart, periodEnd: periodEnd, timeline: timeline, counters: counters)
            if entries[index].waitsForTime {
                i &+= 1
            } else {
                let entry = entries[index]
                removeTimed(at: i)
                insertFramed(entry)
            }
        }
    }

    /// Realtime-safe. After the timeline changed at `frame`: each waiting command placed in
    /// musical time moves to the frame its beat now falls on, and the front is sorted again.
    @_noLocks
    mutating func replaceWaiting(atFrame frame: UInt64, timeline: Timeline) {
        var moved = false
        var i = 0
        while i < framedCount {
            if let beat = entries[i].beat {
                entries[i].frame = timeline.firstFrame(reachingBeat: beat, notBefore: frame)
                moved = true
            }
            i &+= 1
        }
        if moved { sortFront(framedCount) }
    }
}
