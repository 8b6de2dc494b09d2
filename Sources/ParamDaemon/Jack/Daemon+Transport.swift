import Foundation
import Logging
import ParamCore

// Following the JACK transport (SPEC §14 `transport = "jack"`), the control side: what `/status`
// says, `/tempo` refused while a timebase master sets the tempo, and one log line when paramd
// starts or stops following. Control thread. docs/MUSICAL-TIME.md, "The JACK transport".

extension Daemon {
    /// Whether the last period followed a timebase master's BBT.
    var followsJackTransport: Bool { jack.isConnected && jack.transport.cell.state == .following }

    /// `/status timeline` as the JACK transport has it: `jack` while following, else `internal`.
    var transportTimelineName: String { followsJackTransport ? "jack" : "internal" }

    /// `/tempo`'s refusal while following. JACK names no timebase master: neither JACK2's API
    /// nor its metadata nor PipeWire's libjack says which client it is.
    static var tempoRefusalWhileFollowing: String {
        "the tempo is set by the JACK transport's timebase master, which paramd follows (transport = \"jack\"); change it there"
    }

    /// Logs a start or an end of following, once each (woken by the process callback's write
    /// to the inbox when the state changed; a master that flaps is rate-limited), and counts
    /// `1m` in the master's bar and at its tempo from then on (the 24-hour limit, a glide's
    /// length): the renderer's timeline keeps both when it falls back, and a new JACK
    /// connection starts on the configured bar.
    func noticeTransportChange(now: Double) {
        if jack.transport.isRequested {
            let bar = jack.transport.cell.beatsPerBar
            controller.beatsPerBar = bar > 0 ? bar : settings.beatsPerBar
            if followsJackTransport { controller.tempo = audio.tempo.tempoNow }
        }
        guard let change = jack.transport.change(now: now) else { return }
        if change.from == .following { controller.tempo = audio.tempo.tempoNow }
        guard let suppressed = change.suppressed else { return }
        var metadata: Logger.Metadata = [
            "tempo": "\(audio.tempo.tempoNow)", "beat": "\(audio.tempo.beatNow)",
        ]
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        if change.to == .following {
            log.notice("following the JACK transport's timebase master", metadata: metadata)
        } else {
            log.notice("\(change.to.reason): paramd falls back to its own timeline, on from the beat and tempo it had",
                       metadata: metadata)
        }
    }
}
