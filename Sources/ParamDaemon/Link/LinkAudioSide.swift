import CJack
import CLinkBridge
import ParamCore
import Synchronization

/// The Link instance and the session state the audio thread captures into, as the control
/// thread publishes them (LinkSession.swift): immutable while published.
struct LinkInstance {
    let link: OpaquePointer
    let audioState: OpaquePointer
    /// Link's quantum: the beats of a bar whose phase every peer shares.
    let beatsPerBar: Int
}

/// How the process callback reads Link's session each period (SPEC §14). Allocated once for
/// paramd's life in `HotMemory` and shared by every JACK client it opens, as `PeriodWaiter` is:
/// a Link session outlives a JACK connection and the other way round. A struct of one pointer.
///
/// `instance` (control → audio): the address of the published `LinkInstance`, 0 while there
/// is none (link off): the renderer then runs its own timeline on. `mapping` (audio thread
/// only): Link's clock minus JACK's as last kept, and the bracket it was read in.
struct LinkAudioSide: @unchecked Sendable {
    private let instance: UnsafeMutablePointer<Atomic<UInt64>>
    private let mapping: UnsafeMutablePointer<LinkClockMapping>

    /// Control thread, once for paramd's life.
    init() {
        instance = HotMemory.allocate(Atomic<UInt64>.self, capacity: 1)
        instance.initialize(to: Atomic(0))
        mapping = HotMemory.allocate(LinkClockMapping.self, capacity: 1)
        // No reading yet: any bracket is tighter.
        mapping.initialize(to: LinkClockMapping(linkMinusJackMicros: 0, uncertaintyMicros: Int64.max))
    }

    /// Control thread. Makes `instance` the one the next period reads (nil: none). After
    /// unpublishing, the caller waits until the periods that may still hold the old one have
    /// ended before destroying it (`Daemon.stopLink`).
    func publish(_ instance: UnsafePointer<LinkInstance>?) {
        let bits = instance.map { UInt64(UInt(bitPattern: $0)) } ?? 0
        self.instance.pointee.store(bits, ordering: .releasing)  // pairs with `reading`'s acquiring load
    }

    /// Realtime-safe. What Link's session says at the period's first frame, heard at JACK time
    /// `periodJackMicros` (`jack_get_cycle_times`' current_usecs) plus `out_1`'s playback
    /// latency, as Link's documentation asks; nil while no session is published.
    @_noLocks
    func reading(out1: OpaquePointer, periodJackMicros: UInt64, sampleRate: Double) -> TimelineReading? {
        let bits = self.instance.pointee.load(ordering: .acquiring)
        guard bits != 0, let instance = UnsafePointer<LinkInstance>(bitPattern: UInt(bits)) else { return nil }
        let link = instance.pointee.link, state = instance.pointee.audioState
        _unsafePerformance { paramd_link_capture_audio_session_state(link, state) }
        let mapping = clockMapping(link: link)
        // The port's latency as JACK last computed it for the graph: a read of the port's record.
        var latency = jack_latency_range_t(min: 0, max: 0)
        _unsafePerformance { jack_port_get_latency_range(out1, JackPlaybackLatency, &latency) }
        let heardMicros = mapping.linkMicros(hearingFrame: 0, periodFirstFrame: 0, periodJackMicros: periodJackMicros,
                                             sampleRate: sampleRate, outputLatencyFrames: latency.max)
        let bar = instance.pointee.beatsPerBar
        let tempo = _unsafePerformance { paramd_link_session_state_tempo(state) }
        let beat = _unsafePerformance { paramd_link_session_state_beat_at_time(state, heardMicros, Double(bar)) }
        return TimelineReading(tempo: tempo, beat: beat, beatsPerBar: bar)
    }

    /// Realtime-safe. Link's clock minus JACK's, read here each period rather than on the control
    /// thread: the two may be different clocks (docs/MUSICAL-TIME.md), and a fresh reading needs
    /// no timer. JACK's clock, Link's, JACK's again (vDSO clock reads, whole microseconds, so a
    /// reading is right to half the bracket plus 1 µs). The kept offset is replaced by a reading
    /// in a tighter bracket, or by one that disagrees with it beyond both uncertainties (the
    /// clocks moved apart); otherwise it stays, so the timeline does not jitter by a microsecond
    /// of rounding each period, and a preempted reading (a wide bracket) changes nothing.
    @_noLocks
    private func clockMapping(link: OpaquePointer) -> LinkClockMapping {
        let before = _unsafePerformance { jack_get_time() }
        let linkMicros = _unsafePerformance { paramd_link_clock_micros(link) }
        let after = _unsafePerformance { jack_get_time() }
        guard after >= before, after < UInt64(Int64.max) else { return mapping.pointee }
        let uncertainty = Int64(after &- before) / 2 &+ 1
        let offset = linkMicros &- (Int64(before) &+ Int64(after &- before) / 2)
        let kept = mapping.pointee
        let apart = (offset &- kept.linkMinusJackMicros).magnitude
        let keptUncertainty = kept.uncertaintyMicros == Int64.max ? kept.uncertaintyMicros : kept.uncertaintyMicros &+ uncertainty
        if uncertainty < kept.uncertaintyMicros || apart > UInt64(keptUncertainty) {
            mapping.pointee.linkMinusJackMicros = offset
            mapping.pointee.uncertaintyMicros = uncertainty
        }
        return mapping.pointee
    }
}
