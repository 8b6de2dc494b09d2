import Foundation
import Logging
import ParamCore
import ParamSystem

// The control thread's loop. It sleeps in `poll` on the OSC sockets, the signalfd and the
// inbox until a packet, a signal or posted work arrives, or until the next duty is due:
// the JACK-to-system clock measurement (every 10 s while connected and nothing else wakes
// it), a retry (once a second while the server is away), a state write, the systemd
// watchdog, a held-back log line, a `/tempo` landing or gliding while a WebSocket listens to
// the tempo (60 looks a second, Daemon+TempoFeed.swift). Nothing else wakes it: an idle paramd
// with no watchdog wakes it once every 10 s.

extension Daemon {
    /// How often the JACK-to-system clock offset is measured while connected: once a second
    /// while a command waits on the audio side (a time tag or a delay: its frame is placed
    /// with the offset carried since the last measurement) and whenever the control thread is
    /// awake anyway (a packet, the inbox) and the last one is a second old; otherwise every
    /// `clockIdleIntervalSeconds`, waking for it. Before a time-tagged packet too, if the last
    /// measurement is older than a quarter second. (Each such wake costs an idle paramd
    /// about 80 µs: docs/PERFORMANCE.md, "The control thread".)
    static let clockMeasureIntervalSeconds = 1.0
    static let clockIdleIntervalSeconds = 10.0

    /// The control thread's loop: OSC, signals, inbox and duties. Returns the exit status.
    func run() throws -> Int32 {
        nameThisThread("paramd")
        let code = ResidentCode.populate()
        log.debug("code mapped ahead of the audio thread: \(code.mappings) mappings, \(code.bytes >> 20) MiB; refused: \(code.refused)")
        publisher.start()
        let now = monotonicSeconds()
        systemd.nextWatchdogAt = now
        connectToJack(now: now)
        sendWatchdogIfHealthy(now: now)

        var fds = loop.sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let signalIndex = fds.count, inboxIndex = fds.count + 1
        fds.append(pollfd(fd: loop.signals, events: Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: loop.inbox.fd, events: Int16(POLLIN), revents: 0))
        let sessionIndex = fds.count  // the session manager's socket, under NSM
        if let nsm { fds.append(pollfd(fd: nsm.fd, events: Int16(POLLIN), revents: 0)) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { buffer.deallocate() }

        while true {
            let before = monotonicSeconds()
            Poll.wait(&fds, seconds: secondsToNextDuty(now: before))
            if fds[signalIndex].revents != 0 {
                for signal in Signals.take(loop.signals) {
                    switch signal {
                    case SIGTERM, SIGINT:
                        return stop(on: signal == SIGTERM ? "SIGTERM" : "SIGINT")
                    case SIGHUP:
                        reload()
                    default:
                        break
                    }
                }
            }
            for (i, socket) in loop.sockets.enumerated() where fds[i].revents & Int16(POLLIN) != 0 {
                // Drain what waits, in bounded batches so one socket cannot starve the other.
                var batch = 0
                while batch < 256, let (count, sender) = socket.receive(into: buffer) {
                    batch += 1
                    guard admitsDatagram(from: sender) else { continue }
                    // 64 KiB holds any UDP datagram whole.
                    handlePacket(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), replyingTo: .udp(socket, sender))
                }
            }
            if fds[inboxIndex].revents != 0 {
                for work in loop.inbox.take() {
                    switch work {
                    case .packet(let bytes, let channel):
                        bytes.withUnsafeBytes { handlePacket($0, replyingTo: channel) }
                    case .run(let body):
                        body(self)
                    }
                }
            }
            if nsm != nil, fds[sessionIndex].revents != 0 { handleSessionManager() }
            duties(now: monotonicSeconds())
        }
    }

    /// Everything that happens on time rather than on a message. Cheap when nothing is due:
    /// it runs after every wake.
    func duties(now: Double) {
        adoptTargetUpdates()
        if takesBusy { takeDuties() }
        midiDuties()
        if settings.timecode != .off { timecodeDuties() }
        linkDuties(now: now)
        if let suppressed = loop.badInput.log.takeSuppressed(now: now) {
            log.warning("bad input: more refused messages or malformed packets", metadata: ["suppressed": "\(suppressed)"])
        }
        measureClockOffsetIfStale(now: now, maximumAge: Self.clockMeasureIntervalSeconds)
        noticeTransportChange(now: now)
        if jack.isConnected, JackEvents.shared.serverGone.load(ordering: .acquiring) {  // pairs with paramdShutdown
            closeAfterServerLoss(now: now)
        }
        if !jack.isConnected {
            // Nobody renders the parked renderer: drop what was sent to it (the controller
            // already holds the targets, which the next connection starts from).
            audio.commands.discardAll()
            if now >= jackWatch.retry.nextRetryAt { connectToJack(now: now) }
        }
        saveStateIfDue(now: now)
        sendWatchdogIfHealthy(now: now)
        updateStatus(now: now)
        loop.wakeups.sample(now: now, excluding: jack.jackThreadIDs)
        JackMessages.drain()
        // Whatever this wake changed (a packet, MIDI, a reload, a stop), LISTEN hears the new targets.
        web.listen.announceTargets(controller.targets, registry: controller.registry, through: publisher)
        announceTempoNow()
    }

    /// Re-measures the JACK-to-system clock offset (which time tags are placed with) when the
    /// last measurement is older than `maximumAge` seconds.
    func measureClockOffsetIfStale(now: Double, maximumAge: Double) {
        guard jack.isConnected, now - jackWatch.clock.measuredAt >= maximumAge else { return }
        jackWatch.clock.measuredAt = now
        if let offset = jack.measureClockOffset(ppm: jackWatch.clock.offsetPPM) { jackWatch.clock.record(offsetMicros: offset, at: now) }
    }

    /// Seconds until the next duty is due; nil when none is (the loop then sleeps until a
    /// packet, a signal or the inbox wakes it).
    func secondsToNextDuty(now: Double) -> Double? {
        var next = Double.infinity
        if jack.isConnected {
            let waiting = audio.commands.count > 0 || audio.counter(.scheduled) > 0
            next = min(next, jackWatch.clock.measuredAt + (waiting ? Self.clockMeasureIntervalSeconds : Self.clockIdleIntervalSeconds))
        }
        if systemd.notifier?.watchdogInterval != nil { next = min(next, systemd.nextWatchdogAt) }
        if !jack.isConnected { next = min(next, jackWatch.retry.nextRetryAt) }
        if jackWatch.retry.goneSeenAt != nil { next = min(next, now + JackRetry.libjackExitCheckSeconds) }
        if let since = stateSaving.unsavedSince { next = min(next, since + StateSaving.saveDelaySeconds) }
        if let glide = link.glide { next = min(next, glide.nextStepAt) }
        if loop.badInput.log.suppressed > 0 { next = min(next, now + loop.badInput.log.intervalSeconds) }
        if let tempo = secondsToTempoWatch(now: now) { next = min(next, now + tempo) }
        if takesBusy { next = min(next, now + Self.takeReportIntervalSeconds) }
        return next.isFinite ? max(0, next - now) : nil
    }
}
