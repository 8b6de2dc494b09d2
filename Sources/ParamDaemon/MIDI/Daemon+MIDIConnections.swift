import Foundation
import Logging

// `--connect-midi-in` / `--connect-midi-out` (SPEC §10): the MIDI ports' connections, made at
// every connection to JACK (so they come back with the server) and on SIGHUP. Control thread.

extension Daemon {
    /// Connects the listed ports to midi_in and midi_out to the listed ports. A port that is not
    /// there is a warning, not a failure; JACK forgets nothing paramd did not make.
    func connectMIDIPorts() {
        connectMIDI(settings.connectMIDIIn, .input)
        connectMIDI(settings.connectMIDIOut, .output)
    }

    private func connectMIDI(_ ports: [String], _ direction: MIDIConnectionDirection) {
        guard !ports.isEmpty else { return }
        let failures = jack.connectMIDI(ports, direction)
        for f in failures { log.warning("cannot connect \(f)") }
        let made = ports.count - failures.count
        guard made > 0 else { return }
        let port = direction == .input ? "midi_in" : "midi_out"
        let text = direction == .input ? "\(made) of \(ports.count) port(s) → \(port)" : "\(port) → \(made) of \(ports.count) port(s)"
        log.info("connected \(text)")
    }

    /// After a reload changed `connect-midi-in` or `connect-midi-out` (now in `settings`): the
    /// ports added are connected at once, the ones taken off the list disconnected; the new
    /// lists are what every later connection to JACK makes.
    func midiConnectionsReloaded(from old: Settings) {
        for (before, after, direction, key) in [(old.connectMIDIIn, settings.connectMIDIIn, MIDIConnectionDirection.input, SettingsTable.connectMIDIIn.key),
                                                (old.connectMIDIOut, settings.connectMIDIOut, .output, SettingsTable.connectMIDIOut.key)]
            where before != after {
            let added = after.filter { !before.contains($0) }
            let removed = before.filter { !after.contains($0) }
            log.notice("config: '\(key)' now \(after.isEmpty ? "empty" : after.joined(separator: ", "))")
            guard jack.isConnected else { continue }  // the next connection makes them
            for f in jack.disconnectMIDI(removed, direction) { log.warning("cannot disconnect \(f)") }
            connectMIDI(added, direction)
        }
    }
}
