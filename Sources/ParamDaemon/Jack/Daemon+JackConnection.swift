import Foundation
import Logging
import ParamCore

// JACK, lost and found (SPEC §5). Control thread.

extension Daemon {
    /// Tries the server once: on success the new renderer replaces the parked one everywhere,
    /// the connections are made, and the first time paramd says it is ready.
    func connectToJack(now: Double) {
        jackWatch.retry.nextRetryAt = now + JackRetry.retryIntervalSeconds
        // A new renderer starts on the controller's targets with nothing in flight: both sides
        // count command serials from 0 (before it runs, so a MIDI move in its first period is
        // adopted). Nothing renders while parked, so a failed attempt loses nothing by it.
        controller.restartSerials()
        let targets = controller
        let previous: Renderer
        jack.transport.isRequested = settings.transport == .jack
        do {
            previous = try jack.connect(registry: targets.registry) { rate in
                Renderer(sampleRate: rate, registry: targets.registry, initial: { targets.target($0) }, counters: audio.counters,
                         tempo: audio.tempo, timecode: audio.timecode)
            }
        } catch {
            if !jackWatch.retry.waitingLogged {
                jackWatch.retry.waitingLogged = true
                let what = jackWatch.retry.announcedReady ? "still no JACK server" : "no JACK server"
                log.warning("\(what) \(jack.serverDescription) (\(error)); OSC is up, retrying every second")
            }
            return
        }
        // Opening may have taken seconds (libjack's slot helpers): the connection's own time.
        let connectedAt = monotonicSeconds()
        jackWatch.clock.measuredAt = connectedAt  // the connection measured it
        logStaleSlots()
        controller.sampleRate = Double(jack.sampleRate)  // a recall's stagger, in whole frames of it
        // The new renderer's handles, taken before it was activated: the control thread never
        // reads the renderer the audio thread now runs.
        let fresh = jack.handles
        // Parameters whose target moved while the server was away now sound it: tell subscribers.
        var jumps: [Event] = []
        for p in controller.registry.ids where fresh.sounding(p) != previous.sounding(p) {
            jumps.append(.value(p, fresh.sounding(p)))
        }
        publisher.switchEvents(to: fresh, injecting: jumps)
        releaseTakes()  // the previous renderer's players and recording end with it
        audio = fresh
        controller.depthSnapshot = fresh.depthSnapshot  // `/mod/get`'s depth, from the new renderer
        previous.deallocate()
        // Members bound to `morph` follow it again; they already rest on their bound targets.
        let rebinds = controller.rebindCommands(controller.registry.ids, glide: DefaultAction(seconds: 0, curve: .linear))
        if !rebinds.isEmpty && !rebinds.withUnsafeBufferPointer({ audio.commands.push(all: $0) }) {
            log.error("the command queue is full; \(rebinds.count) member(s) rest where morph left them instead of following it")
            controller.forgetBindings(rebinds.map(\.command.parameter))
        }
        // The modulators run on in the new renderer, at the depth they had.
        let modulators = controller.modulatorCommands()
        if !modulators.isEmpty && !modulators.withUnsafeBufferPointer({ audio.commands.push(all: $0) }) {
            log.error("the command queue is full; modulators not restarted")
        }
        systemd.audioPeriods = 0
        systemd.audioProgressAt = connectedAt
        jackWatch.retry.waitingLogged = false

        let client = "JACK client '\(jack.name)' at \(jack.sampleRate) Hz, \(jack.bufferSize) frames"
        if !jackWatch.retry.announcedReady {
            jackWatch.retry.announcedReady = true
            // Connected before "ready" and READY=1, so whoever waits for either finds the ports patched.
            connectPorts()
            log.info("ready: OSC on \(listening); \(client)")
            systemd.status = statusText(now: now)
            systemd.statusSentAt = now
            systemd.notifier?.ready(status: systemd.status)
            sessionReady()  // under NSM: answer `open` now that the ports exist
        } else {
            let away = jackWatch.retry.lostAt.map { String(format: " after %.1f s", now - $0) } ?? ""
            log.notice("JACK server \(jack.serverDescription) is back\(away): \(client); parameters sound their targets")
            connectPorts()
        }
        jackWatch.retry.lostAt = nil
        jackWatch.retry.lostWallClock = nil
        updateStatus(now: now, force: true)
    }

    /// Waits until the renderer has rendered up to `target` periods (its period counter),
    /// asleep until the audio thread reports that period (`PeriodWaiter.waitForPeriod`). Only
    /// on the way out (the fade) and on a reload. False when `deadline` (monotonic seconds)
    /// passes or the server goes away first.
    func waitForAudioPeriods(reaching target: UInt64, deadline: Double) -> Bool {
        jack.periodWaiter.waitForPeriod(target, deadline: deadline,
                           reached: { audio.counter(.periods) >= target },
                           gone: { JackEvents.shared.serverGone.load(ordering: .acquiring) })
    }

    /// `--connect`, else `--autoconnect`, `--connect-cv`, `--connect-midi-in`/`-out`: at the
    /// first connection and after every reconnection.
    func connectPorts() {
        var destinations = settings.connections
        if destinations.isEmpty && settings.autoconnect {
            destinations = Array(jack.physicalPlaybackPorts().prefix(2))
            if destinations.isEmpty { log.warning("--autoconnect: no physical playback ports") }
        }
        if !settings.connectCV.isEmpty {
            let failures = jack.connectCV(settings.connectCV)
            for f in failures { log.warning("cannot connect \(f)") }
            if failures.isEmpty {
                let text = settings.connectCV.sorted { $0.key < $1.key }
                    .map { "cv_\($0.key) → \($0.value.joined(separator: ","))" }.joined(separator: ", ")
                log.info("connected \(text)")
            }
        }
        connectMIDIPorts()
        guard !destinations.isEmpty else { return }
        let failures = jack.connectOutputs(to: destinations)
        for f in failures { log.warning("cannot connect \(f)") }
        if failures.isEmpty { log.info("connected \(jack.outputNames.joined(separator: ",")) → \(destinations.joined(separator: ","))") }
    }

    /// The shutdown callback said the server is gone: once libjack's notification thread has
    /// ended (JackSession.libjackThreadsEnded; the control loop looks again every 10 ms until
    /// then, for at most `JackRetry.libjackExitWaitSeconds`), close the client (`serverLost`).
    func closeAfterServerLoss(now: Double) {
        let since = jackWatch.retry.goneSeenAt ?? now
        jackWatch.retry.goneSeenAt = since
        let ended = jack.libjackThreadsEnded
        guard ended || now - since >= JackRetry.libjackExitWaitSeconds else { return }
        if !ended {
            log.warning("libjack's notification thread still runs \(JackRetry.libjackExitWaitSeconds) s after the server went away; closing the client anyway")
        }
        log.debug("closing the client \(String(format: "%.1f", (now - since) * 1000)) ms after the server went away (notification thread(s) \(jack.notificationThreadIDs), all libjack's \(jack.jackThreadIDs))")
        jackWatch.retry.goneSeenAt = nil
        serverLost(now: now)
    }

    /// The server is gone and libjack's notification thread has ended: close the client, end
    /// the animations in flight with `/done i 0`, keep OSC up, retry every second.
    func serverLost(now: Double) {
        let ended = jack.serverLost()
        releaseTakes()
        jackWatch.clock.reset()
        publisher.switchEvents(to: jack.handles, injecting: ended)
        jackWatch.retry.lostAt = now
        jackWatch.retry.lostWallClock = Date()
        jackWatch.retry.nextRetryAt = now + JackRetry.retryIntervalSeconds
        jackWatch.retry.waitingLogged = true  // this line says it; the retries stay quiet
        log.error("JACK server \(jack.serverDescription) went away; \(ended.count) animation(s) ended; OSC stays up; retrying every second")
        updateStatus(now: now, force: true)
    }

    /// What libjack held as the client opened, if anything (`JackClientHandle.staleSlotsLetGo`).
    private func logStaleSlots() {
        if !jack.staleSlotsLetGo.isEmpty {
            log.notice("libjack kept the wake-up slot of \(jack.staleSlotsLetGo.joined(separator: ", ")), which left as paramd's client opened (a JACK2 defect); a helper client let it go (docs/OPERATIONS.md)")
        }
        if !jack.staleSlotsKept.isEmpty {
            log.warning("libjack still holds the wake-up slot of \(jack.staleSlotsKept.joined(separator: ", ")): a client given its place downstream of paramd will not run until it leaves (docs/OPERATIONS.md)")
        }
    }
}
