import CJack

// `--connect-midi-in` / `--connect-midi-out` (SPEC §10): the JACK side. Control thread.

/// What the daemon asks of the MIDI ports' connections; a failure is a sentence for the log.
enum MIDIConnectionDirection {
    /// `PORT → paramd:midi_in` (controllers).
    case input
    /// `paramd:midi_out → PORT` (feedback).
    case output
}

extension JackClient {
    /// Full names of the MIDI ports, `paramd:midi_in` and `paramd:midi_out`.
    var midiInName: String { String(cString: jack_port_name(context.pointee.midiIn)) }
    var midiOutName: String { String(cString: jack_port_name(context.pointee.midiOut)) }

    /// The (source, destination) pair for `port` in `direction`.
    func midiEnds(_ port: String, _ direction: MIDIConnectionDirection) -> (String, String) {
        direction == .input ? (port, midiInName) : (midiOutName, port)
    }

    /// Connects each of `ports` to midi_in (`.input`) or midi_out to each (`.output`). Returns
    /// the failures (a port that does not exist, or is not a MIDI port of the right direction).
    func connectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) -> [String] {
        var failures: [String] = []
        for port in ports {
            let (source, destination) = midiEnds(port, direction)
            let rc = jack_connect(client, source, destination)
            // EEXIST: already connected, which is what we wanted.
            if rc != 0 && rc != 17 { failures.append("\(source) → \(destination) (\(why(port, rc)))") }
        }
        return failures
    }

    /// Undoes `connectMIDI` for `ports` (those a reload took off the list). Returns the failures;
    /// a connection already gone is none.
    func disconnectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) -> [String] {
        var failures: [String] = []
        for port in ports {
            let (source, destination) = midiEnds(port, direction)
            guard let mine = jack_port_by_name(client, direction == .input ? destination : source),
                  jack_port_connected_to(mine, port) != 0 else { continue }
            let rc = jack_disconnect(client, source, destination)
            if rc != 0 { failures.append("\(source) → \(destination) (code \(rc))") }
        }
        return failures
    }

    /// Why `jack_connect` failed, in words where the port can be looked at.
    private func why(_ port: String, _ rc: Int32) -> String {
        guard let p = jack_port_by_name(client, port) else { return "no such port" }
        if let type = jack_port_type(p), String(cString: type) != JACK_DEFAULT_MIDI_TYPE {
            return "not a MIDI port: \(String(cString: type))"
        }
        return "code \(rc)"
    }
}

extension JackSession {
    func connectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) -> [String] {
        client?.connectMIDI(ports, direction) ?? []
    }
    func disconnectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) -> [String] {
        client?.disconnectMIDI(ports, direction) ?? []
    }
}
