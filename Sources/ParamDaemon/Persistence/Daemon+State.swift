import Foundation
import Logging
import ParamCore

// The state file (SPEC §6): written 0.25 s after the first change, and at exit. Control thread.

extension Daemon {
    func saveStateIfDue(now: Double) {
        guard life.store != nil else { return }
        if trackSessionState() { return }  // under NSM: saved when the session is (Session/)
        if let since = life.unsavedSince {
            if now - since >= Lifecycle.saveDelay { saveState(now: now, atExit: false) }
            return
        }
        if SavedState(controller, midi: midi.savedLearned) != life.lastSaved { life.unsavedSince = now }
    }

    func saveState(now: Double, atExit: Bool) {
        guard let store = life.store else { return }
        let state = SavedState(controller, midi: midi.savedLearned)
        if !atExit && state == life.lastSaved {
            life.unsavedSince = nil
            return
        }
        do {
            try store.save(state)
            life.lastSaved = state
            life.unsavedSince = nil
            if life.saveError != nil { log.notice("state saved again to \(store.path)") }
            life.saveError = nil
            if atExit { log.info("state saved to \(store.path)") } else { log.debug("state saved to \(store.path)") }
        } catch {
            if life.saveError != error.description { log.error("state not saved: \(error)") }
            life.saveError = error.description
            // Try again in a second.
            life.unsavedSince = now + Lifecycle.retryInterval - Lifecycle.saveDelay
        }
    }

}
