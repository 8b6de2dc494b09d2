import CJack
import ParamCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Whether the audio side follows the JACK transport, for the control side (`/status timeline`,
/// the log line, the bar `1m` counts): one word in `HotMemory` holding a `TransportFollowing` in
/// its low byte and the master's beats per bar above it (0 before any reading), written by the
/// process callback when it changes and read by the control thread. For paramd's life, shared
/// by every JACK client it opens.
struct TransportStatusCell: @unchecked Sendable {
    private let word: UnsafeMutablePointer<Atomic<UInt32>>

    init() {
        word = HotMemory.allocate(Atomic<UInt32>.self, capacity: 1)
        word.initialize(to: Atomic(TransportFollowing.off.rawValue))
    }

    /// Realtime-safe (and the control thread, with no client running). Whether what it says is
    /// new. Relaxed: the word is the whole message, and the eventfd that follows a change orders it.
    @_noLocks
    func store(_ state: TransportFollowing, beatsPerBar: Int = 0) -> Bool {
        let value = state.rawValue | UInt32(truncatingIfNeeded: beatsPerBar & 0xFF) << 8
        return word.pointee.exchange(value, ordering: .relaxed) != value
    }

    /// Any thread. What the last period said.
    var state: TransportFollowing {
        TransportFollowing(rawValue: word.pointee.load(ordering: .relaxed) & 0xFF) ?? .off
    }

    /// Any thread. The bar of the master last followed (paramd's timeline keeps it when it falls
    /// back); 0 before any.
    var beatsPerBar: Int { Int(word.pointee.load(ordering: .relaxed) >> 8) }
}

/// The JACK transport as the process callback reads it each period when `transport = "jack"`
/// (SPEC §14): `jack_transport_query` (realtime-safe, JACK's transport.h: from the process
/// thread, the position of the cycle's first frame) into a `jack_position_t` kept here, its BBT
/// checked and held to one line by `TransportFollower`. `cell` nil: the transport is not read.
struct JackTransportReader {
    let cell: TransportStatusCell?
    /// The control thread's inbox `eventfd`, written when the state changes, so the log line
    /// comes within a period of the change rather than at the control thread's next wake.
    let controlWake: Int32
    var position = jack_position_t()
    var follower = TransportFollower()

    /// Not reading the transport.
    static var off: JackTransportReader { JackTransportReader(cell: nil, controlWake: -1) }

    /// Realtime-safe. This period's reading, nil when paramd's own timeline runs on (the
    /// transport stopped, no BBT or BBT out of range, or not reading it at all).
    @_noLocks
    mutating func reading(client: OpaquePointer, sampleRate: Double) -> TimelineReading? {
        guard let cell else { return nil }
        let state = _unsafePerformance { jack_transport_query(client, &position) }
        let rolling = state == JackTransportRolling
        var bbt: TransportBBT? = nil
        if position.valid.rawValue & JackPositionBBT.rawValue != 0 {
            let tickDouble = position.valid.rawValue & JackTickDouble.rawValue != 0 ? position.tick_double : .nan
            let offset = position.valid.rawValue & JackBBTFrameOffset.rawValue != 0 ? position.bbt_offset : 0
            bbt = TransportBBT(bar: position.bar, beat: position.beat, tick: position.tick, tickDouble: tickDouble,
                               beatsPerBar: position.beats_per_bar, beatType: position.beat_type,
                               ticksPerBeat: position.ticks_per_beat, beatsPerMinute: position.beats_per_minute,
                               offsetFrames: offset)
        }
        let reading = follower.follow(rolling: rolling, bbt: bbt, transportFrame: position.frame, sampleRate: sampleRate)
        if cell.store(follower.state, beatsPerBar: follower.beatsPerBar) {
            var one: UInt64 = 1
            let fd = controlWake
            _ = _unsafePerformance { write(fd, &one, 8) }
        }
        return reading
    }
}
