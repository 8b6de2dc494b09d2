import Foundation
import Logging
import ParamCore

/// The state file as the control loop keeps it (SPEC §6): the store, what was last written,
/// since when the model differs from it, and the learned MIDI mappings it held at start.
/// Control thread.
struct StateSaving {
    /// nil with `--no-state`.
    let store: StateStore?
    /// The state as last written (or as restored), and since when the model differs from it.
    var lastSaved: SavedState?
    var unsavedSince: Double?
    var saveError: String?
    /// The learned MIDI mappings the state file held at start (SPEC §10).
    var restoredMIDI: [SavedMIDIMapping] = []

    /// State is written this long after the first unsaved change (well within SPEC's second),
    /// so a burst of messages makes one write.
    static let saveDelaySeconds = 0.25
    /// A write that failed is tried again this long after.
    static let retryIntervalSeconds = 1.0

    init(stateFile: String?) {
        store = stateFile.map { StateStore(path: $0) }
    }

    /// The controller paramd starts with: saved state if there is some, else the config file's
    /// initial values and default actions, else SPEC §3's. A damaged state file is set aside.
    mutating func startingController(_ settings: Settings, log: Logger) -> Controller {
        var restored: SavedState?
        if let store {
            switch store.load() {
            case .none:
                log.info("no saved state yet at \(store.path)")
            case .restored(let state):
                restored = state
                restoredMIDI = state.midi ?? []
                log.info("state restored from \(store.path)")
            case .damaged(let reason, let aside):
                let where_ = aside.map { "set aside as \($0)" } ?? "could not be set aside"
                log.warning("state file \(store.path) is damaged (\(reason)); \(where_); starting from the config")
            }
        }
        let registry = settings.registry
        var controller = Controller(
            registry: registry,
            initial: { restored?.target(registry[$0].name) ?? settings.initialValue($0) },
            defaults: { restored?.defaultAction(registry[$0].name) ?? settings.defaultAction($0) })
        controller.configureScenes(settings.scenes)
        controller.restoreScenes((restored?.scenes ?? []).map(\.scene))
        // A take that cannot be restored is left out, with a warning; the rest of the file stands.
        var takes: [Take] = []
        for saved in restored?.takes ?? [] {
            switch saved.take() {
            case .success(let take): takes.append(take)
            case .failure(let problem): log.warning("state file: \(problem.reason); that take is left out")
            }
        }
        controller.restoreTakes(takes)
        // Cues set with `/at` (the config's are added after them); one that cannot be used is left out.
        controller.setTimecodeRate(settings.timecodeRate)
        for saved in restored?.cues ?? [] {
            switch saved.cue(rate: settings.timecodeRate) {
            case .success(let (label, message)):
                if (try? controller.checkCue(message)) != nil {
                    _ = controller.cues.add(label, message, ahead: controller.firesAhead(message))
                } else {
                    log.warning("state file: the cue at \(saved.time) is refused now; it is left out")
                }
            case .failure(let problem): log.warning("state file: \(problem.reason); that cue is left out")
            }
        }
        // The first JACK connection starts them (`Controller.modulatorCommands`).
        // Saved modulators win over the config file's, as saved targets do.
        var modulators = settings.modulatorsByID
        for (name, saved) in restored?.modulators ?? [:] {
            if let p = registry.id(named: name), case .success(let request) = saved.request() { modulators[p] = request }
        }
        _ = controller.setModulators(modulators)
        if store != nil { lastSaved = SavedState(controller) }
        return controller
    }
}
