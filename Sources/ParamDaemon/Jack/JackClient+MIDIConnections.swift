import CJack
import ParamSystem

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
    var midiInName: String { JackPort(context.pointee.midiIn).name }
    var midiOutName: String { JackPort(context.pointee.midiOut).name }

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
            do throws(JackError) {
                try jack.ensureConnected(source, to: destination)
            } catch {
                failures.append("\(source) → \(destination) (\(why(port, error.code)))")
            }
        }
        return failures
    }

    /// Undoes `connectMIDI` for `ports` (those a reload took off the list). Returns the failures;
    /// a connection already gone is none.
    func disconnectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) -> [String] {
        var failures: [String] = []
        for port in ports {
            let (source, destination) = midiEnds(port, direction)
            guard let mine = jack.port(named: direction == .input ? destination : source),
                  mine.isConnected(to: port) else { continue }
            do throws(JackError) {
                try jack.disconnect(source, from: destination)
            } catch {
                failures.append("\(source) → \(destination) (code \(error.code.rawValue))")
            }
        }
        return failures
    }

    /// Why `jack_connect` failed, in words where the port can be looked at.
    private func why(_ port: String, _ code: JackError.Code) -> String {
        guard let p = jack.port(named: port) else { return "no such port" }
        if p.type != .midi { return "not a MIDI port: \(p.type.rawValue)" }
        return "code \(code.rawValue)"
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
