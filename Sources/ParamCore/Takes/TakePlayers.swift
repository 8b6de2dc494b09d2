/// One take playing on the audio side: its program, the pass it is in and where that pass
/// started, the next action, and its members.
@usableFromInline
struct TakePlayer: BitwiseCopyable {
    var program: TakeProgram? = nil
    var passes: Double = 1
    var pass: UInt32 = 0
    /// The frame and the timeline's beat the current pass started on.
    var passFrame: UInt64 = 0
    var passBeat: Double = 0
    /// The next action's index in `program.actions`.
    var cursor = 0
    /// The frame the next action starts on, or the pass ends on.
    var due: UInt64 = .max
    /// Members that joined (their cue was not cancelled), and those a live message took over
    /// until the next pass.
    var members = SlotSet()
    var takenOver = SlotSet()
    /// Punch-in: a live action silences the member's own actions for this many frames (0: not
    /// punching in).
    var touchFrames: UInt64 = 0
    /// No pass was cut short and no member taken over (`/take/done`'s `finished`).
    var untouched = true
}

/// A program stopped before it played, and whether its end was reported.
@usableFromInline
struct TakeCancel: BitwiseCopyable {
    var program: TakeProgram? = nil
    var reported = false
}

/// The recording on the audio side: the armed members, and where the take started and ends.
@usableFromInline
struct TakeArming: BitwiseCopyable {
    var armed = SlotSet()
    /// The recording's number (`TakeCue.recording`).
    var recording: UInt32 = 0
    var startFrame: UInt64 = 0
    var startBeat: Double = 0
    /// The end: a frame (a take in seconds) or a beat (musical); `.max`/infinity: at a disarm.
    var endFrame: UInt64 = .max
    var endBeat: Double = .infinity
}

/// Takes on the audio side (SPEC §17): the players, the recording's armed members, and the
/// ring of reports to the control side (which records). Owned by the renderer; its memory is
/// allocated on the control thread.
@usableFromInline
struct TakePlayers: @unchecked Sendable {
    static var capacity: Int { 64 }
    let players: UnsafeMutablePointer<TakePlayer>
    /// Per parameter slot, the players it is a joined member of, as bits.
    let byParameter: UnsafeMutablePointer<UInt64>
    /// Per parameter slot, the frame until which a punch-in silences its take's own actions.
    let touchUntil: UnsafeMutablePointer<UInt64>
    /// Per player, a program stopped before its play cue came (a delay, a time tag, `quantize`):
    /// its cues are ignored when they come, and the first of them reports its end.
    let cancelled: UnsafeMutablePointer<TakeCancel>
    /// The players playing, as bits.
    var playing: UInt64 = 0
    var arming = TakeArming()
    let reports: SPSCRing<TakeReport>
    /// The earliest `due` of any player (`.max`: none plays).
    var nextFrame: UInt64 = .max

    init(parameterCapacity: Int, reportCapacity: Int = 1024) {
        players = Resident.allocate(TakePlayer.self, capacity: Self.capacity)
        players.initialize(repeating: TakePlayer(), count: Self.capacity)
        byParameter = Resident.allocate(UInt64.self, capacity: parameterCapacity)
        touchUntil = Resident.allocate(UInt64.self, capacity: parameterCapacity)
        cancelled = Resident.allocate(TakeCancel.self, capacity: Self.capacity)
        cancelled.initialize(repeating: TakeCancel(), count: Self.capacity)
        reports = SPSCRing<TakeReport>(capacity: reportCapacity)
    }

    func deallocate() {
        players.deallocate()
        byParameter.deallocate()
        touchUntil.deallocate()
        cancelled.deallocate()
        reports.deallocate()
    }

    /// Realtime-safe. A report for the control side; a full ring drops it and counts it.
    @_noLocks @inline(__always)
    func report(_ report: TakeReport, counters: RenderCounters) {
        if !reports.push(report) { counters.add(.droppedEvents, 1) }
    }

    /// Realtime-safe. `nextFrame` again, after a player's `due` changed.
    @_noLocks
    mutating func updateNextFrame() {
        var earliest = UInt64.max
        var bits = playing
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            bits &= bits &- 1
            earliest = min(earliest, players[slot].due)
        }
        nextFrame = earliest
    }

    /// Realtime-safe. A live action on `p` on `frame`: each player holding it gives it up, until
    /// its next pass, or (punching in) for its touch window.
    @_noLocks
    mutating func heardLive(_ p: Int, atFrame frame: UInt64) {
        var bits = byParameter[p]
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            bits &= bits &- 1
            if players[slot].touchFrames > 0 {
                touchUntil[p] = frame &+ players[slot].touchFrames
            } else {
                players[slot].takenOver.insert(p)
                players[slot].untouched = false
            }
        }
    }

    /// Realtime-safe. Whether player `slot` leaves `p`'s action on `frame` unplayed.
    @_noLocks @inline(__always)
    func silences(_ slot: Int, _ p: Int, atFrame frame: UInt64) -> Bool {
        let player = players[slot]
        return !player.members.contains(p) || player.takenOver.contains(p) || (player.touchFrames > 0 && touchUntil[p] > frame)
    }

    /// Realtime-safe. Player `slot` stops: it reports its end (so the control side frees the
    /// program) and holds no member.
    @_noLocks
    mutating func end(_ slot: Int, finished: Bool, counters: RenderCounters) {
        guard let program = players[slot].program else { return }
        let bit = UInt64(1) << UInt64(slot)
        var i = 0
        while i < program.parameters.count {
            if let p = program.parameters[i] { byParameter[p.index] &= ~bit }
            i &+= 1
        }
        players[slot] = TakePlayer()
        playing &= ~bit
        report(.ended(slot: UInt8(slot), finished: finished, program: program), counters: counters)
        updateNextFrame()
    }
}
