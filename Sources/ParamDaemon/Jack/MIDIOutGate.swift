import CJack
import ParamCore

/// Whether the process callback writes `midi_out` this period, and whether it must clear it
/// once more. Feedback goes out only when its value changes, so a value written in a period
/// whose graph does not yet route `midi_out` to the port just connected is lost for good, and
/// the port-connect notification that raises `MIDIPortLinks`' count can come first. So on
/// JACK2, once the count says connected, the graph the cycle runs is asked too:
/// `jack_port_connected` on the process thread does not wait (JackAPI.cpp `WaitGraphChange`
/// skips it where JackClient::Init set the real-time key) and reads `ReadCurrentState()`, the
/// graph switched in at the cycle's start. A graph ahead of the count costs a period, not the
/// value. JACK1 answers from its client's own list, which its process thread updates between
/// cycles; PipeWire's libjack takes a lock there, so under it the count alone decides.
struct MIDIOutGate {
    /// JACK2's or JACK1's libjack: ask it. Set by the control thread before activation.
    let asksJack: Bool
    /// Audio thread only: `midi_out` may hold events from the last period it was routed, so it
    /// is cleared once more when it has no connection left (and once at the start).
    var dirty = true

    init(asksJack: Bool) { self.asksJack = asksJack }

    /// Realtime-safe. True when `port` (midi_out) is connected by the notifications' count and,
    /// where libjack can say so without a lock, by the graph this period runs. The count is read
    /// first: an unconnected midi_out costs no look into JACK's shared memory.
    @_noLocks @inline(__always)
    func routed(_ port: OpaquePointer, links: MIDIPortLinks) -> Bool {
        guard links.connections(.midiOut) != 0 else { return false }
        return !asksJack || _unsafePerformance { jack_port_connected(port) } > 0
    }
}
