import Foundation
import Logging
import ParamCore

// The state file (SPEC §6): written 0.25 s after the first change, and at exit. Control thread.

extension Daemon {
    func saveStateIfDue(now: Double) {
        guard stateSaving.store != nil else { return }
        if trackSessionState() { return }  // under NSM: saved when the session is (Session/)
        if let since = stateSaving.unsavedSince {
            if now - since >= StateSaving.saveDelaySeconds { saveState(now: now, atExit: false) }
            return
        }
        if SavedState(controller, midi: midi.savedLearned) != stateSaving.lastSaved { stateSaving.unsavedSince = now }
    }

    func saveState(now: Double, atExit: Bool) {
        guard let store = stateSaving.store else { return }
        let state = SavedState(controller, midi: midi.savedLearned)
        if !atExit && state == stateSaving.lastSaved {
            stateSaving.unsavedSince = nil
            return
        }
        do {
            try store.save(state)
            stateSaving.lastSaved = state
            stateSaving.unsavedSince = nil
            if stateSaving.saveError != nil { log.notice("state saved again to \(store.path)") }
            stateSaving.saveError = nil
            if atExit { log.info("state saved to \(store.path)") } else { log.debug("state saved to \(store.path)") }
        } catch {
            if stateSaving.saveError != error.description { log.error("state not saved: \(error)") }
            stateSaving.saveError = error.description
            // Try again in a second.
            stateSaving.unsavedSince = now + StateSaving.retryIntervalSeconds - StateSaving.saveDelaySeconds
        }
    }

}
