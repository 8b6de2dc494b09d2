import CJack
import ParamCore

/// Whether the process callback writes `midi_out` this period, and whether it must clear it
/// once more. Feedback goes out only when its value changes, so a value written in a period
/// whose graph does not yet route `midi_out` to the port just connected is lost for good.
/// JACK2's `jack_port_connected`, called on the process thread, answers from the graph this
/// cycle runs, lock-free and without waiting (libjack's real-time path), so a new connection
/// is written to from the first period that carries its events. PipeWire's libjack takes a lock
/// there: on it, the count from port-connect notifications (`MIDIPortLinks`) decides.
struct MIDIOutGate {
    /// JACK2's libjack: ask the graph. Set by the control thread before activation.
    let asksGraph: Bool
    /// Audio thread only: `midi_out` may hold events from the last period it was routed, so it
    /// is cleared once more when it has no connection left (and once at the start).
    var dirty = true

    init(asksGraph: Bool) { self.asksGraph = asksGraph }

    /// Realtime-safe. True when this period's graph routes `port` (midi_out) somewhere.
    @_noLocks @inline(__always)
    func routed(_ port: OpaquePointer, links: MIDIPortLinks) -> Bool {
        guard asksGraph else { return links.connections(.midiOut) != 0 }
        return _unsafePerformance { jack_port_connected(port) } > 0
    }
}
