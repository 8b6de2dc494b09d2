import CJack
import CLinkBridge
import ParamSystem
import Synchronization

/// What the probe's JACK process callback and its control thread share, allocated before the
/// client is activated: the way paramd's renderer will hold Link (capture and commit of the
/// audio session state on the JACK thread, words crossing as atomics).
struct AudioSide {
    let link: OpaquePointer
    /// The session state each period captures into (created on the control thread).
    let session: OpaquePointer
    let quantum: Double
    /// A tempo the control thread asks for, as Double bits; 0 for none. The callback takes it.
    let requestedTempo: UnsafeMutablePointer<Atomic<UInt64>>
    /// The session tempo and the beat at the period's Link time, as Double bits.
    let tempo: UnsafeMutablePointer<Atomic<UInt64>>
    let beat: UnsafeMutablePointer<Atomic<UInt64>>
    /// Periods the callback has run.
    let periods: UnsafeMutablePointer<Atomic<UInt64>>

    /// Control thread.
    static func make(link: OpaquePointer, session: OpaquePointer, quantum: Double) -> UnsafeMutablePointer<AudioSide> {
        func word() -> UnsafeMutablePointer<Atomic<UInt64>> {
            let pointer = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: 1)
            pointer.initialize(to: Atomic(0))
            return pointer
        }
        let side = UnsafeMutablePointer<AudioSide>.allocate(capacity: 1)
        side.initialize(to: AudioSide(link: link, session: session, quantum: quantum, requestedTempo: word(),
                                      tempo: word(), beat: word(), periods: word()))
        return side
    }
}

/// Realtime-safe (JACK's process thread). Captures Link's audio session state, commits a tempo
/// the control thread asked for, and publishes the tempo and beat. The allocation counter
/// (Tests/Support/alloccount.c) counts what this allocates: LinkPeerTests expects nothing.
func linkProbeProcess(_ frames: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let side = argument?.assumingMemoryBound(to: AudioSide.self) else { return 0 }
    let link = side.pointee.link, session = side.pointee.session
    paramd_link_capture_audio_session_state(link, session)
    let now = paramd_link_clock_micros(link)
    // Pairs with the control thread's store of a request (release).
    let requested = side.pointee.requestedTempo.pointee.exchange(0, ordering: .acquiring)
    if requested != 0 {
        paramd_link_session_state_set_tempo(session, Double(bitPattern: requested), now)
        paramd_link_commit_audio_session_state(link, session)
    }
    // Read by the control thread after it sees `periods` move (acquire on its side).
    side.pointee.tempo.pointee.store(paramd_link_session_state_tempo(session).bitPattern, ordering: .relaxed)
    side.pointee.beat.pointee.store(paramd_link_session_state_beat_at_time(session, now, side.pointee.quantum).bitPattern,
                                    ordering: .relaxed)
    side.pointee.periods.pointee.add(1, ordering: .releasing)
    return 0
}

/// Control thread. Opens a client on `server` whose process callback is `linkProbeProcess`.
func startAudioSide(_ side: UnsafeMutablePointer<AudioSide>, server: String) throws(JackError) -> JackClientHandle {
    let client = try JackClientHandle(name: "linkprobe", server: server)
    jack_set_process_callback(client.pointer, linkProbeProcess, side)
    try client.activate()
    return client
}
