import Foundation
import Logging

/// systemd notification as the control loop keeps it (SPEC §6): the watchdog's next beat,
/// the STATUS= line last sent, and the audio side's progress that the health check reads.
/// Control thread.
struct SystemdHealth {
    /// nil when paramd does not run under systemd (no `NOTIFY_SOCKET`).
    let notifier: SystemdNotifier?
    /// Monotonic seconds of the next `WATCHDOG=1`.
    var nextWatchdogAt = 0.0
    var status = ""
    var statusSentAt = -Double.infinity
    /// The period counter as last seen, and when it last moved.
    var audioPeriods: UInt64 = 0
    var audioProgressAt = 0.0
    /// Why the watchdog is withheld, while it is.
    var unhealthy: String?
    var notifyErrorLogged = false

    init(log: Logger) {
        notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        if let notifier {
            let watchdog = notifier.watchdogInterval.map { String(format: "; WATCHDOG=1 every %.3g s", $0) } ?? ""
            log.debug("systemd notification socket \(notifier.socketName)\(watchdog)")
        }
    }
}
