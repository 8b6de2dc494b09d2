import Synchronization

/// The tempo between the control thread and the audio thread (SPEC §14): the control side
/// posts a tempo change (`/tempo`), the audio side takes it at the top of a period and
/// publishes the timeline's tempo and beat at the end of each period (`/status`, `/tempo/get`).
/// It outlives a renderer, as `RenderCounters` do, so a new JACK connection starts at the last
/// tempo asked for. A struct of one pointer: copies share the cells.
public struct TempoExchange: @unchecked Sendable {
    /// 0 bpm asked · 1 glide seconds · 2 sequence (odd while the control side writes) ·
    /// 3 beats per bar · 4 tempo now · 5 beat now · 6 the JACK frame of "now".
    @usableFromInline let cells: UnsafeMutablePointer<Atomic<UInt64>>

    /// Control thread. A tempo of `bpm` and bars of `beatsPerBar` beats, both already checked
    /// (`Timeline.checkedTempo`, `checkedBeatsPerBar`).
    public init(bpm: Double, beatsPerBar: Int) {
        cells = HotMemory.allocate(Atomic<UInt64>.self, capacity: 7)
        for i in 0..<7 { (cells + i).initialize(to: Atomic(0)) }
        cells[0].store(bpm.bitPattern, ordering: .relaxed)
        cells[3].store(UInt64(max(beatsPerBar, 1)), ordering: .relaxed)
        cells[4].store(bpm.bitPattern, ordering: .relaxed)
    }

    /// Control thread, once no renderer uses it.
    public func deallocate() { HotMemory.deallocate(cells) }

    /// Control thread (the only writer). Asks for `bpm`, reached over `glideSeconds` (0: at once).
    public func post(bpm: Double, glideSeconds: Double) {
        let sequence = cells[2].load(ordering: .relaxed)
        cells[2].store(sequence &+ 1, ordering: .relaxed)  // odd: being written
        atomicMemoryFence(ordering: .releasing)
        cells[0].store(bpm.bitPattern, ordering: .relaxed)
        cells[1].store(glideSeconds.bitPattern, ordering: .relaxed)
        cells[2].store(sequence &+ 2, ordering: .releasing)
    }

    /// Any thread. The tempo last asked for (the configured one before any `/tempo`).
    public var requestedBPM: Double { Double(bitPattern: cells[0].load(ordering: .relaxed)) }
    /// Any thread. Beats in a bar.
    public var beatsPerBar: Int { Int(cells[3].load(ordering: .relaxed)) }

    /// Realtime-safe. The request whose sequence is not `seen`, with its sequence; nil when
    /// there is none, or while the control side is writing one (it is taken next period).
    @_noLocks
    public func request(after seen: UInt64) -> (bpm: Double, glideSeconds: Double, sequence: UInt64)? {
        let sequence = cells[2].load(ordering: .acquiring)
        guard sequence != seen, sequence & 1 == 0 else { return nil }
        let bpm = Double(bitPattern: cells[0].load(ordering: .relaxed))
        let glide = Double(bitPattern: cells[1].load(ordering: .relaxed))
        atomicMemoryFence(ordering: .acquiring)
        guard cells[2].load(ordering: .relaxed) == sequence else { return nil }
        return (bpm, glide, sequence)
    }

    /// Realtime-safe. The sequence of the last request posted (a new renderer starts there).
    public var sequence: UInt64 { @_noLocks get { cells[2].load(ordering: .acquiring) } }

    /// Realtime-safe. What the timeline says at the end of a period, and JACK's frame counter
    /// as read in that period (on JACK2, the frame after it), so that a client can put the beat
    /// on its own recording of JACK frames.
    @_noLocks
    public func publish(tempo: Double, beat: Double, jackFrame: UInt32) {
        cells[4].store(tempo.bitPattern, ordering: .relaxed)
        cells[5].store(beat.bitPattern, ordering: .relaxed)
        cells[6].store(UInt64(jackFrame), ordering: .relaxed)
    }

    /// Any thread. The tempo at the end of the last period rendered, BPM.
    public var tempoNow: Double { Double(bitPattern: cells[4].load(ordering: .relaxed)) }
    /// Any thread. The timeline's beat at the end of the last period rendered.
    public var beatNow: Double { Double(bitPattern: cells[5].load(ordering: .relaxed)) }
    /// Any thread. The frame on JACK's counter at which `beatNow` holds (the end of the period).
    public var jackFrameNow: UInt32 { UInt32(truncatingIfNeeded: cells[6].load(ordering: .relaxed)) }
}
