import CLinkBridge
import ParamCore

/// Why paramd could not join Link: Link's own words.
struct LinkSetupError: Error, CustomStringConvertible {
    let description: String
}

/// The daemon's Ableton Link session (SPEC §14): one Link instance, enabled from creation to
/// `close`, its callbacks' signals and the session state the audio thread captures into.
/// Control thread, but for what `LinkAudioSide` reads on the audio thread.
final class LinkSession {
    private let link: OpaquePointer
    /// For `capture_app_session_state` on the control thread.
    private let appState: OpaquePointer
    /// What the audio side reads once published; freed by `close`.
    let instance: UnsafeMutablePointer<LinkInstance>
    let signals: UnsafeMutablePointer<LinkSignals>
    /// `signals.changes` when the control side last looked.
    var changesSeen: UInt64 = 0
    private var closed = false

    /// Control thread. Joins a session at `bpm` (the session's tempo wins if it has peers);
    /// the callbacks wake the control loop through `controlWake`.
    init(bpm: Double, beatsPerBar: Int, controlWake: Int32) throws(LinkSetupError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let link = paramd_link_create(bpm, &error, Int32(error.count)) else {
            let words = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LinkSetupError(description: words.isEmpty ? "Link could not be created" : words)
        }
        guard let appState = paramd_link_session_state_create(), let audioState = paramd_link_session_state_create() else {
            paramd_link_destroy(link)
            throw LinkSetupError(description: "out of memory for Link's session state")
        }
        self.link = link
        self.appState = appState
        instance = UnsafeMutablePointer<LinkInstance>.allocate(capacity: 1)
        instance.initialize(to: LinkInstance(link: link, audioState: audioState, beatsPerBar: beatsPerBar))
        signals = UnsafeMutablePointer<LinkSignals>.allocate(capacity: 1)
        signals.initialize(to: LinkSignals(controlWake: controlWake))
        paramd_link_set_num_peers_callback(link, linkPeersChanged, signals)
        paramd_link_set_tempo_callback(link, linkTempoChanged, signals)
        paramd_link_enable(link, true)
    }

    /// Control thread. The number of other peers in the session.
    var peers: Int { Int(clamping: paramd_link_num_peers(link)) }

    /// Control thread. The session tempo now, BPM.
    var tempo: Double {
        paramd_link_capture_app_session_state(link, appState)
        return paramd_link_session_state_tempo(appState)
    }

    /// Control thread. Sets the session tempo for every peer from now on (`bpm` checked, 20…999).
    func setTempo(_ bpm: Double) {
        paramd_link_capture_app_session_state(link, appState)
        paramd_link_session_state_set_tempo(appState, bpm, paramd_link_clock_micros(link))
        paramd_link_commit_app_session_state(link, appState)
    }

    /// Control thread. Leaves the session on the network; the audio side may still capture
    /// from the instance until it is unpublished.
    func leave() {
        paramd_link_enable(link, false)
    }

    /// Control thread, once no period reads `instance` (unpublished, and the periods that may
    /// have held it have ended). Leaves the session and frees everything; Link's thread has
    /// stopped calling back when `paramd_link_destroy` returns.
    func close() {
        guard !closed else { return }
        closed = true
        paramd_link_enable(link, false)
        paramd_link_destroy(link)
        paramd_link_session_state_destroy(appState)
        paramd_link_session_state_destroy(instance.pointee.audioState)
        instance.deinitialize(count: 1)
        instance.deallocate()
        signals.deinitialize(count: 1)
        signals.deallocate()
    }
}
