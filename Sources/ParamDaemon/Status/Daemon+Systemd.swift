import Foundation
import Logging
import ParamCore

// systemd: the watchdog, its health check, and STATUS= (SPEC §6). Control thread.

extension Daemon {
    /// `WATCHDOG=1` at half of `WATCHDOG_USEC` while the publisher thread is not stuck in a
    /// round (asleep is healthy) and, with a server, the process callback runs; withheld (and
    /// logged) otherwise, so systemd restarts a paramd that hangs. Waiting for a server is
    /// healthy. The control thread itself sends it, so a hung control loop sends nothing.
    func sendWatchdogIfHealthy(now: Double) {
        let problem = healthProblem(now: now)
        if problem != systemd.unhealthy {
            if let problem {
                log.error("unhealthy, withholding the watchdog: \(problem)")
            } else if systemd.unhealthy != nil {
                log.notice("healthy again")
            }
            systemd.unhealthy = problem
            updateStatus(now: now, force: true)
        }
        if let notifier = systemd.notifier, let error = notifier.lastError, !systemd.notifyErrorLogged {
            systemd.notifyErrorLogged = true
            log.warning("systemd notification: \(error)")
        }
        guard let notifier = systemd.notifier, let interval = notifier.watchdogInterval, now >= systemd.nextWatchdogAt else { return }
        systemd.nextWatchdogAt = max(systemd.nextWatchdogAt + interval, now + interval / 2)
        if problem == nil { notifier.watchdog() }
    }

    func healthProblem(now: Double) -> String? {
        let busy = publisher.secondsBusy
        if busy > 2 { return String(format: "the publisher thread has been stuck in one round for %.1f s", busy) }
        if jack.isConnected, !JackEvents.shared.serverGone.load(ordering: .relaxed) {
            let periods = audio.counter(.periods)
            if periods != systemd.audioPeriods {
                systemd.audioPeriods = periods
                systemd.audioProgressAt = now
            } else if now - systemd.audioProgressAt > 3 {
                return String(format: "JACK has not called the process callback for %.1f s", now - systemd.audioProgressAt)
            }
        }
        return nil
    }

    /// What `systemctl --user status paramd` shows.
    func statusText(now: Double) -> String {
        var text: String
        if jack.isConnected {
            let subscribers = publisher.subscriberCount
            text = "Running: JACK client '\(jack.name)' on server \(jack.serverDescription) at \(jack.sampleRate) Hz, \(jack.bufferSize) frames; OSC on \(listening); \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        } else if let lost = jackWatch.retry.lostWallClock {
            let formatter = DateFormatter()
            formatter.dateFormat = "HH:mm:ss"
            text = "JACK server \(jack.serverDescription) lost at \(formatter.string(from: lost)); retrying every second; OSC stays up on \(listening)"
        } else {
            text = "Waiting for JACK server \(jack.serverDescription), retrying every second; OSC on \(listening)"
        }
        if let problem = systemd.unhealthy { text = "Unhealthy: \(problem). " + text }
        return text
    }

    /// Sends `STATUS=` when it changed: at once when `force`, else at most once a second.
    func updateStatus(now: Double, force: Bool = false) {
        guard let notifier = systemd.notifier else { return }
        guard force || now - systemd.statusSentAt >= 1 else { return }
        let text = statusText(now: now)
        guard text != systemd.status else { return }
        systemd.status = text
        systemd.statusSentAt = now
        notifier.status(text)
    }

}
