/// Timecode points heard in a period whose place on JACK's frames was not yet known: JACK's
/// counter had stepped further than the period, and `JackFrameFollower` waits for the next
/// reading to tell missed cycles (the renderer's frames then move on) from a late callback
/// (they do not). Such a period's samples sit `pending` frames past where the renderer renders
/// it if the cycles were missed; heard there at once, a point would put the clock's line that
/// far off until the next point, and a cue in between would start that far early (seen: 257
/// samples). So the points wait a period and are heard where the skip put them. Fixed capacity,
/// allocated on the control thread; audio thread after that.
struct DeferredTimecodePoints {
    static var capacity: Int { 16 }
    struct Entry {
        var point: TimecodeObservation
        /// The renderer frame it was heard on.
        var frame: Double
        /// The follower's unconfirmed skip then, in frames.
        var pending: Int64
    }
    let entries: UnsafeMutablePointer<Entry>
    private(set) var count = 0

    init() { entries = HotMemory.allocate(Entry.self, capacity: Self.capacity) }

    func deallocate() { HotMemory.deallocate(entries) }

    /// Realtime-safe. Keeps a point heard on renderer frame `frame` while `pending` frames wait
    /// to be skipped; past capacity the newest replaces the last (the latest point is the one
    /// the clock needs).
    @_noLocks
    mutating func keep(_ point: TimecodeObservation, atFrame frame: Double, pending: Int64) {
        let entry = Entry(point: point, frame: frame, pending: pending)
        if count < Self.capacity {
            entries[count] = entry
            count &+= 1
        } else {
            entries[Self.capacity &- 1] = entry
        }
    }

    /// Realtime-safe. Where a point kept with `pending` frames waiting lies once the follower has
    /// moved the renderer's frames by `moved` (the cycles were missed: the skip, as far as it
    /// waited then; a late callback: 0).
    @_noLocks @inline(__always)
    static func shift(pending: Int64, moved: Int64) -> Int64 {
        if pending > 0 && moved > 0 { return min(pending, moved) }
        if pending < 0 && moved < 0 { return max(pending, moved) }
        return 0
    }

    @_noLocks
    mutating func clear() { count = 0 }
}
