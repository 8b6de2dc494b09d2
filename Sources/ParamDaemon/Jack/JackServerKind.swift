import CJack

/// Which JACK server paramd's libjack talks to, from `jack_get_version_string`: PipeWire's
/// libjack (pw-jack, or installed as the system's) says "3.0.0.0 (using PipeWire 0.3.65)";
/// JACK2's and JACK1's say their own version. `/status` reports it, the renderer follows a
/// PipeWire counter, which steps by the earlier cycle's length (`JackFrameFollower.follow`), and
/// only JACK's own libjack is asked on the process thread whether `midi_out` is connected
/// (MIDIOutGate: PipeWire's takes a lock there).
enum JackServerKind: String {
    case jackd, pipewire

    /// The library's, read once: it does not change while paramd runs. Control thread.
    static let library: JackServerKind = {
        guard let version = jack_get_version_string() else { return .jackd }
        return String(cString: version).contains("PipeWire") ? .pipewire : .jackd
    }()
}
