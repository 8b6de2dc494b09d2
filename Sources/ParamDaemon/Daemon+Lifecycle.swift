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
    var unsavedSince: Double?
    var saveError: String?

    var nextWatchdog = 0.0
    var nextRetry = 0.0
    /// `READY=1` sent and the "ready:" line logged: once, at the first connection.
    var announcedReady = false
    var waitingLogged = false
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
                log.info("state restored from \(store.path)")
            case .damaged(let reason, let aside):
                let where_ = aside.map { "set aside as \($0)" } ?? "could not be set aside"
                log.warning("state file \(store.path) is damaged (\(reason)); \(where_); starting from the config")
            }
        }
        let controller = Controller(
            initial: { restored?.target($0) ?? settings.initialValue($0) },
            defaults: { restored?.defaultAction($0) ?? settings.defaultAction($0) })
        if store != nil { lastSaved = SavedState(controller) }
        return controller
    }
}

extension Daemon {
    /// The control thread's loop: OSC, signals, and the duties of a long-lived daemon. Returns
    /// the exit status.
    func run() throws -> Int32 {
        publisher.start()
        let now = monotonicSeconds()
        life.nextWatchdog = now
        connectToJack(now: now)
        sendWatchdogIfHealthy(now: now)

        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: signals, events: Int16(POLLIN), revents: 0))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { buffer.deallocate() }

        while true {
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout(now: monotonicSeconds()))
            if ready < 0 && errno != EINTR { throw OSCError(operation: "poll", code: errno) }
            if fds.last!.revents & Int16(POLLIN) != 0 {
                var signal: Int32 = 0
                _ = read(signals, &signal, MemoryLayout<Int32>.size)
                switch signal {
                case SIGTERM, SIGINT:
                    return stop(on: signal == SIGTERM ? "SIGTERM" : "SIGINT")
                case SIGHUP:
                    reload()
                default:
                    break
                }
            }
            for (i, socket) in sockets.enumerated() where fds[i].revents & Int16(POLLIN) != 0 {
                // Drain what waits, in bounded batches so one socket cannot starve the other.
                var batch = 0
                while batch < 256, let (count, sender) = socket.receive(into: buffer) {
                    batch += 1
                    // 64 KiB holds any UDP datagram whole.
                    handlePacket(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), from: sender, on: socket)
                }
            }
            duties(now: monotonicSeconds())
        }
    }

    /// Everything that happens on time rather than on a message.
    private func duties(now: Double) {
        adoptTargetUpdates()
        if let suppressed = errorLog.takeSuppressed(now: now) {
            log.warning("bad input: more refused messages or malformed packets", metadata: ["suppressed": "\(suppressed)"])
        }
        if now - life.clockMeasuredAt >= 0.5 {
            life.clockMeasuredAt = now
            jack.measureClockOffset()
        }
        if jack.isConnected, JackEvents.shared.serverGone.load(ordering: .acquiring) {  // pairs with paramdShutdown
            serverLost(now: now)
        }
        if !jack.isConnected {
            // Nobody renders the parked renderer: drop what was sent to it (the controller
            // already holds the targets, which the next connection starts from).
            while commands.pop() != nil {}
            if now >= life.nextRetry { connectToJack(now: now) }
        }
        saveStateIfDue(now: now)
        sendWatchdogIfHealthy(now: now)
        updateStatus(now: now)
    }

    /// Milliseconds until the next duty, at most 200.
    private func pollTimeout(now: Double) -> Int32 {
        var next = now + 0.2
        if life.notifier?.watchdogInterval != nil { next = min(next, life.nextWatchdog) }
        if !jack.isConnected { next = min(next, life.nextRetry) }
        if let since = life.unsavedSince { next = min(next, since + Lifecycle.saveDelay) }
        return Int32(max(1, min(200, ((next - now) * 1000).rounded(.up))))
    }

    private var listening: String { sockets.map(\.address.description).joined(separator: " and ") }

    // MARK: - JACK, lost and found

    /// Tries the server once: on success the new renderer replaces the parked one everywhere,
    /// the connections are made, and the first time paramd says it is ready.
    private func connectToJack(now: Double) {
        life.nextRetry = now + Lifecycle.retryInterval
        let targets = controller
        let previous: Renderer
        do {
            previous = try jack.connect { rate in Renderer(sampleRate: rate, initial: { targets.target($0) }) }
        } catch {
            if !life.waitingLogged {
                life.waitingLogged = true
                let what = life.announcedReady ? "still no JACK server" : "no JACK server"
                log.warning("\(what) \(jack.serverDescription) (\(error)); OSC is up, retrying every second")
            }
            return
        }
        let renderer = jack.renderer
        // Parameters whose target moved while the server was away now sound it: tell subscribers.
        var jumps: [Event] = []
        for p in ParameterID.allCases where renderer.sounding(p) != previous.sounding(p) {
            jumps.append(.value(p, renderer.sounding(p)))
        }
        publisher.switchEvents(to: renderer.events, injecting: jumps)
        lateBefore += Int(renderCounters.load(RenderCounter.late.rawValue))
        droppedEventsBefore += Int(renderCounters.load(RenderCounter.droppedEvents.rawValue))
        commands = renderer.commands
        targetUpdates = renderer.updates
        snapshot = renderer.snapshot
        renderCounters = renderer.counters
        previous.deallocate()
        life.audioPeriods = 0
        life.audioProgressAt = now
        life.waitingLogged = false

        let client = "JACK client '\(jack.name)' at \(jack.sampleRate) Hz, \(jack.bufferSize) frames"
        if !life.announcedReady {
            life.announcedReady = true
            log.info("ready: OSC on \(listening); \(client)")
            connectPorts()
            life.status = statusText(now: now)
            life.statusSentAt = now
            life.notifier?.ready(status: life.status)
        } else {
            let away = life.lostAt.map { String(format: " after %.1f s", now - $0) } ?? ""
            log.notice("JACK server \(jack.serverDescription) is back\(away): \(client); parameters sound their targets")
            connectPorts()
        }
        life.lostAt = nil
        life.lostWallClock = nil
        updateStatus(now: now, force: true)
    }

    /// `--connect`, else `--autoconnect`: at the first connection and after every reconnection.
    private func connectPorts() {
        var destinations = options.connections
        if destinations.isEmpty && options.autoconnect {
            destinations = Array(jack.physicalPlaybackPorts().prefix(2))
            if destinations.isEmpty { log.warning("--autoconnect: no physical playback ports") }
        }
        guard !destinations.isEmpty else { return }
        let failures = jack.connectOutputs(to: destinations)
        for f in failures { log.warning("cannot connect \(f)") }
        if failures.isEmpty { log.info("connected \(jack.outputNames.joined(separator: ",")) → \(destinations.joined(separator: ","))") }
    }

    /// The shutdown callback said the server is gone: close the client, end the animations in
    /// flight with `/done i 0`, keep OSC up, retry every second.
    private func serverLost(now: Double) {
        let ended = jack.serverLost()
        publisher.switchEvents(to: jack.renderer.events, injecting: ended)
        life.lostAt = now
        life.lostWallClock = Date()
        life.nextRetry = now + Lifecycle.retryInterval
        life.waitingLogged = true  // this line says it; the retries stay quiet
        log.error("JACK server \(jack.serverDescription) went away; \(ended.count) animation(s) ended; OSC stays up; retrying every second")
        updateStatus(now: now, force: true)
    }

    // MARK: - Stopping

    /// SIGTERM/SIGINT: fade the output to silence, save state, leave JACK, exit 0.
    private func stop(on signal: String) -> Int32 {
        life.notifier?.stopping(status: "Stopping on \(signal): fading out, saving state, leaving JACK")
        log.info("signal \(signal): stopping")
        fadeOut()
        saveState(now: monotonicSeconds(), atExit: true)
        jack.leave()
        publisher.stop()
        jack.release()
        log.info("stopped")
        return 0
    }

    /// Pushes a volume-to-0 animation straight to the audio thread (the controller's model,
    /// and so the saved state, keep the real volume) and waits until it has sounded: the last
    /// periods before paramd leaves JACK fade to silence instead of stopping dead.
    private func fadeOut() {
        guard jack.isConnected, !JackEvents.shared.serverGone.load(ordering: .acquiring) else { return }
        let rate = Double(max(jack.sampleRate, 1))
        let period = max(jack.bufferSize, 1)
        let seconds = Lifecycle.fadeSeconds
        let fade = TimedCommand(.animate(.volume, AnimationSpec(target: 0, seconds: seconds,
                                                                 curve: .easeInEaseOut, domain: .linear)))
        let counter = RenderCounter.periods.rawValue
        let before = renderCounters.load(counter)
        guard commands.push(fade) else {
            log.warning("command queue full; leaving JACK without the fade")
            return
        }
        // The period that takes the command starts the fade; wait for it, the fade's own
        // periods, and one period of silence.
        let fadeFrames = Int((seconds * rate).rounded(.up))
        let periods = UInt64(2 + (fadeFrames + period - 1) / period)
        let start = monotonicSeconds()
        let deadline = start + seconds + Double(periods + 2) * Double(period) / rate + 0.25
        while renderCounters.load(counter) < before + periods {
            if monotonicSeconds() > deadline || JackEvents.shared.serverGone.load(ordering: .acquiring) {
                log.warning("the fade did not sound in time; leaving JACK anyway")
                return
            }
            usleep(500)
        }
        log.debug("faded out in \(String(format: "%.1f", (monotonicSeconds() - start) * 1000)) ms")
    }

    // MARK: - State

    private func saveStateIfDue(now: Double) {
        guard life.store != nil else { return }
        if let since = life.unsavedSince {
            if now - since >= Lifecycle.saveDelay { saveState(now: now, atExit: false) }
            return
        }
        if SavedState(controller) != life.lastSaved { life.unsavedSince = now }
    }

    private func saveState(now: Double, atExit: Bool) {
        guard let store = life.store else { return }
        let state = SavedState(controller)
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

    // MARK: - systemd

    /// `WATCHDOG=1` at half of `WATCHDOG_USEC` while the publisher thread turns and, with a
    /// server, the process callback runs; withheld (and logged) otherwise, so systemd restarts a
    /// paramd that hangs. Waiting for a server is healthy.
    private func sendWatchdogIfHealthy(now: Double) {
        let problem = healthProblem(now: now)
        if problem != life.unhealthy {
            if let problem {
                log.error("unhealthy, withholding the watchdog: \(problem)")
            } else if life.unhealthy != nil {
                log.notice("healthy again")
            }
            life.unhealthy = problem
            updateStatus(now: now, force: true)
        }
        if let notifier = life.notifier, let error = notifier.lastError, !life.notifyErrorLogged {
            life.notifyErrorLogged = true
            log.warning("systemd notification: \(error)")
        }
        guard let notifier = life.notifier, let interval = notifier.watchdogInterval, now >= life.nextWatchdog else { return }
        life.nextWatchdog = max(life.nextWatchdog + interval, now + interval / 2)
        if problem == nil { notifier.watchdog() }
    }

    private func healthProblem(now: Double) -> String? {
        let quiet = publisher.secondsSinceHeartbeat
        if quiet > 2 { return String(format: "the publisher thread has not run for %.1f s", quiet) }
        if jack.isConnected, !JackEvents.shared.serverGone.load(ordering: .relaxed) {
            let periods = renderCounters.load(RenderCounter.periods.rawValue)
            if periods != life.audioPeriods {
                life.audioPeriods = periods
                life.audioProgressAt = now
            } else if now - life.audioProgressAt > 3 {
                return String(format: "JACK has not called the process callback for %.1f s", now - life.audioProgressAt)
            }
        }
        return nil
    }

    /// What `systemctl --user status paramd` shows.
    private func statusText(now: Double) -> String {
        var text: String
        if jack.isConnected {
            let subscribers = publisher.subscriberCount
            text = "Running: JACK client '\(jack.name)' on server \(jack.serverDescription) at \(jack.sampleRate) Hz, \(jack.bufferSize) frames; OSC on \(listening); \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        } else if let lost = life.lostWallClock {
            let formatter = DateFormatter()
            formatter.dateFormat = "HH:mm:ss"
            text = "JACK server \(jack.serverDescription) lost at \(formatter.string(from: lost)); retrying every second; OSC stays up on \(listening)"
        } else {
            text = "Waiting for JACK server \(jack.serverDescription), retrying every second; OSC on \(listening)"
        }
        if let problem = life.unhealthy { text = "Unhealthy: \(problem). " + text }
        return text
    }

    /// Sends `STATUS=` when it changed: at once when `force`, else at most once a second.
    private func updateStatus(now: Double, force: Bool = false) {
        guard let notifier = life.notifier else { return }
        guard force || now - life.statusSentAt >= 1 else { return }
        let text = statusText(now: now)
        guard text != life.status else { return }
        life.status = text
        life.statusSentAt = now
        notifier.status(text)
    }

    // MARK: - SIGHUP

    /// Reads the config file again and applies what can change live: the log level, the
    /// subscriber limits, and default actions the file changed. Everything else says in the log
    /// that it waits for a restart. A bad file changes nothing.
    private func reload() {
        life.notifier?.reloading()
        defer { life.notifier?.send("READY=1\nSTATUS=\(life.status)") }
        let environment = ProcessInfo.processInfo.environment
        let explicit = life.commandLine.config.flatMap { Settings.expandTilde($0, environment: environment) }
        let path = explicit ?? ConfigFile.defaultPath(environment: environment)
        let file: ConfigFile?
        do {
            file = try ConfigFile.load(path: path, required: explicit != nil)
        } catch {
            log.error("SIGHUP: config not reloaded, keeping the settings in force: \(error)")
            return
        }
        let new = Settings(options: life.commandLine, file: file, configPath: file == nil ? nil : path,
                           environment: environment)
        let old = options
        var applied = old

        if new.logLevel != old.logLevel {
            StderrLogHandler.setLevel(new.logLevel)
            applied.logLevel = new.logLevel
            log.notice("log level now \(new.logLevel)")
        }
        if new.maxSubscribers != old.maxSubscribers || new.subscriptionTtl != old.subscriptionTtl {
            publisher.subscriptions.withLock { table in
                table.maxSubscribers = new.maxSubscribers
                table.timeToLive = new.subscriptionTtl
            }
            applied.maxSubscribers = new.maxSubscribers
            applied.subscriptionTtl = new.subscriptionTtl
            log.notice("subscribers: at most \(new.maxSubscribers), lasting \(new.subscriptionTtl) s (for new and renewed subscriptions)")
        }
        let restartOnly: [(String, Bool)] = [
            ("port", new.port != old.port), ("bind", new.bind != old.bind), ("server", new.server != old.server),
            ("name", new.name != old.name), ("connect", new.connections != old.connections),
            ("autoconnect", new.autoconnect != old.autoconnect), ("state-file/no-state", new.stateFile != old.stateFile),
        ]
        for (key, changed) in restartOnly where changed {
            log.notice("config: '\(key)' changed; it cannot change while paramd runs and takes effect at the next start")
        }

        // Default actions the file changed (a key removed goes back to SPEC §3's).
        var defaults = ParameterID.allCases.map { controller.defaultAction($0) }
        var changedDefaults: [String] = []
        var changedInitial = false
        for p in ParameterID.allCases {
            let before = old.parameters[p] ?? ParameterConfig(), after = new.parameters[p] ?? ParameterConfig()
            let i = Int(p.rawValue)
            if after.seconds != before.seconds {
                defaults[i].seconds = after.seconds ?? DefaultAction.standard.seconds
            }
            if after.curve != before.curve {
                defaults[i].curve = after.curve ?? DefaultAction.standard.curve
            }
            if defaults[i] != controller.defaultAction(p) {
                changedDefaults.append("\(p.name) \(defaults[i].seconds) s \(defaults[i].curve.description)")
            }
            if after.initial != before.initial { changedInitial = true }
        }
        if !changedDefaults.isEmpty {
            controller = controller.replacingDefaultActions { defaults[Int($0.rawValue)] }
            log.notice("default actions now: \(changedDefaults.joined(separator: ", "))")
        }
        if changedInitial {
            log.notice("config: initial values changed; they apply at start when no state is restored")
        }
        applied.parameters = new.parameters
        applied.configPath = new.configPath
        options = applied
        log.info("config reloaded from \(file == nil ? "(no file at \(path))" : path)")
    }
}

extension Controller {
    /// The same model (targets, `/a4` tuning, command serials) with other default actions.
    func replacingDefaultActions(_ defaults: (ParameterID) -> DefaultAction) -> Controller {
        var replaced = self
        for p in ParameterID.allCases { replaced.setDefaultAction(defaults(p), for: p) }
        return replaced
    }
}
