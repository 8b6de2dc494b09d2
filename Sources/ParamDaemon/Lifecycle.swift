import Foundation
import Logging
import ParamCore

/// What the control loop keeps about paramd's life (SPEC §5, §6): systemd notification, the
/// state file, the JACK connection over time, health. Control thread.
struct Lifecycle {
    /// The command line as given: it wins over the config file at every reload.
    let commandLine: Options
    let notifier: SystemdNotifier?
    /// nil with `--no-state`.
    let store: StateStore?

    /// The state as last written (or as restored), and since when the model differs from it.
    var lastSaved: SavedState?
    /// The learned MIDI mappings the state file held at start (SPEC §10).
    var restoredMIDI: [SavedMIDIMapping] = []
    var unsavedSince: Double?
    var saveError: String?

    var nextWatchdog = 0.0
    var nextRetry = 0.0
    /// `READY=1` sent and the "ready:" line logged: once, at the first connection.
    var announcedReady = false
    var waitingLogged = false
    /// When the control loop first saw the shutdown callback's flag, while it waits for
    /// libjack's notification thread to end before closing the client
    /// (`Daemon.closeAfterServerLoss`).
    var goneSeenAt: Double?
    /// When the server went away, while it is away.
    var lostAt: Double?
    var lostWallClock: Date?

    var status = ""
    var statusSentAt = -Double.infinity
    var audioPeriods: UInt64 = 0
    var audioProgressAt = 0.0
    /// Why the watchdog is withheld, while it is.
    var unhealthy: String?
    var notifyErrorLogged = false
    /// When the JACK-to-system clock offset was last measured.
    var clockMeasuredAt = 0.0

    /// The output's fade to silence on SIGTERM/SIGINT (SPEC §6: within 20 ms).
    static let fadeSeconds = 0.010
    /// State is written this long after the first unsaved change (well within SPEC's second),
    /// so a burst of messages makes one write.
    static let saveDelay = 0.25
    static let retryInterval = 1.0
    /// How long, after the server went away, the client's close waits for libjack's
    /// notification thread to end (JackSession.libjackThreadsEnded); it takes milliseconds.
    static let libjackExitWait = 2.0
    /// How often the control loop looks while it waits.
    static let libjackExitCheck = 0.01

    init(commandLine: Options, settings: Settings, log: Logger) {
        self.commandLine = commandLine
        notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        store = settings.stateFile.map { StateStore(path: $0) }
        if let notifier {
            let watchdog = notifier.watchdogInterval.map { String(format: "; WATCHDOG=1 every %.3g s", $0) } ?? ""
            log.debug("systemd notification socket \(notifier.socketName)\(watchdog)")
        }
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
        let controller = Controller(
            registry: registry,
            initial: { restored?.target(registry[$0].name) ?? settings.initialValue($0) },
            defaults: { restored?.defaultAction(registry[$0].name) ?? settings.defaultAction($0) })
        if store != nil { lastSaved = SavedState(controller) }
        return controller
    }
}
