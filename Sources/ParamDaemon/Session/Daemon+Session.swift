import Foundation
import Logging
import ParamCore

// The daemon under a session manager, once `open` has set it up (SPEC §11). Control thread:
// the session manager's socket is one more descriptor in the control loop's `ppoll`.
//
// - The reply to `open` goes out at the first JACK connection, next to the "ready:" line: the
//   client is active with all its ports by then.
// - State is written when the session manager says `save` (and at exit, SPEC §6), not 0.25 s
//   after each change: a session is saved as a whole, so that "dirty" means something.
// - `is_dirty` / `is_clean` follow whether the model differs from what was last saved or
//   opened, once per change of that answer.

extension Daemon {
    /// The control loop: datagrams from the session manager are waiting.
    func handleSessionManager() {
        guard let nsm else { return }
        let messages = nsm.backlog + nsm.receiveAll()
        nsm.backlog = []
        for message in messages { carryOutSession(nsm.machine.receive(message)) }
    }

    /// At the first JACK connection: the ports exist, answer the `open`.
    func sessionReady() {
        guard let nsm, let session = nsm.machine.session else { return }
        if jack.name != session.clientID {
            log.warning("NSM: JACK named the client '\(jack.name)', not '\(session.clientID)' (a client of that name exists)")
        }
        carryOutSession(nsm.machine.opened("paramd: JACK client '\(jack.name)' active with its ports; OSC on \(listening)"))
        log.info("NSM: open answered; state in \(stateSaving.store?.path ?? "-")")
        if !nsm.backlog.isEmpty { handleSessionManager() }
    }

    /// Under a session manager, instead of the timed state write: say whether the model is
    /// dirty. True when it has (the caller then writes nothing).
    func trackSessionState() -> Bool {
        guard let nsm else { return false }
        stateSaving.unsavedSince = nil
        carryOutSession(nsm.machine.changed(dirty: SavedState(controller, midi: midi.savedLearned) != stateSaving.lastSaved))
        return true
    }

    private func carryOutSession(_ outputs: [NSMClientProtocol.Output]) {
        guard let nsm else { return }
        for action in nsm.carryOut(outputs) {
            switch action {
            case .save:
                carryOutSession(saveSession())
            case .runWithoutSession(let reason):
                log.warning("NSM: \(reason)")
            case .open, .send, .note, .warn:
                break  // `open` is answered by the machine once a session is loaded
            }
        }
    }

    /// `/nsm/client/save`: the state file in the session's folder, written now.
    private func saveSession() -> [NSMClientProtocol.Output] {
        guard let nsm else { return [] }
        guard let store = stateSaving.store else { return nsm.machine.saveFailed("paramd keeps no state") }
        adoptTargetUpdates()
        let state = SavedState(controller, midi: midi.savedLearned)
        do {
            try store.save(state)
        } catch {
            log.error("NSM: save failed: \(error)")
            return nsm.machine.saveFailed("paramd: \(error)")
        }
        stateSaving.lastSaved = state
        stateSaving.saveError = nil
        log.info("NSM: state saved to \(store.path)")
        return nsm.machine.saved()
    }
}
