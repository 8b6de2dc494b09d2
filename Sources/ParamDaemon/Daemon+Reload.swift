import Foundation
import Logging
import ParamCore

// SIGHUP: reload the config file (SPEC §6). Control thread.

extension Daemon {
    /// Reads the config file again and applies what can change live: the log level, the
    /// subscriber limits, default actions the file changed, and declared parameters added,
    /// changed or removed (with their CV ports and sends). Everything else says in the log that
    /// it waits for a restart. A bad file changes nothing.
    func reload() {
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
            ("port", new.port != old.port), ("bind", new.bind != old.bind),
            ("multicast-interface", new.multicastInterface != old.multicastInterface),
            ("http-port", new.httpPort != old.httpPort), ("http-allow-host", new.httpAllowHosts != old.httpAllowHosts), ("server", new.server != old.server),
            ("name", new.name != old.name), ("connect", new.connections != old.connections),
            ("autoconnect", new.autoconnect != old.autoconnect), ("state-file/no-state", new.stateFile != old.stateFile),
        ]
        for (key, changed) in restartOnly where changed {
            log.notice("config: '\(key)' changed; it cannot change while paramd runs and takes effect at the next start")
        }

        // Default actions the file changed (a key removed goes back to SPEC §3's), for every
        // parameter the old and the new file both have.
        var changedDefaults: [String] = []
        var changedInitial = false
        var registry = old.registry
        var defaults: [ParameterID: DefaultAction] = [:]
        for p in old.registry.ids {
            let before = old.registry[p]
            guard let q = new.registry.id(named: before.name) else { continue }
            let after = new.registry[q]
            if after.defaultAction != before.defaultAction {
                defaults[p] = after.defaultAction
                changedDefaults.append("\(before.name) \(after.defaultAction.seconds) s \(after.defaultAction.curve.description)")
                if p.isBuiltIn {
                    registry.configureBuiltIn(p) { $0.defaultAction = after.defaultAction }
                } else {
                    var spec = before
                    spec.defaultAction = after.defaultAction
                    registry.replace(p, with: spec)
                }
            }
            if after.initial != before.initial { changedInitial = true }
        }
        if !changedDefaults.isEmpty {
            controller = controller.replacingDefaultActions { defaults[$0] ?? controller.defaultAction($0) }
            log.notice("default actions now: \(changedDefaults.joined(separator: ", "))")
        }
        if changedInitial {
            log.notice("config: initial values changed; they apply at start when no state is restored")
        }
        // Declared parameters added, changed or removed, CV ports, sends: live (Daemon+Parameters).
        registry = applyParameterChanges(from: registry, to: new.registry, connectCV: new.connectCV)
        applied.connectCV = new.connectCV
        applied.registry = registry
        applied.configPath = new.configPath
        applied.midi = new.midi
        applied.connectMIDIIn = new.connectMIDIIn
        applied.connectMIDIOut = new.connectMIDIOut
        options = applied
        midiConfigReloaded(from: old.midi)
        midiConnectionsReloaded(from: old)
        log.info("config reloaded from \(file == nil ? "(no file at \(path))" : path)")
    }
}

extension Controller {
    /// The same model (targets, `/a4` tuning, command serials) with other default actions.
    func replacingDefaultActions(_ defaults: (ParameterID) -> DefaultAction) -> Controller {
        var replaced = self
        for p in registry.ids { replaced.setDefaultAction(defaults(p), for: p) }
        return replaced
    }
}
