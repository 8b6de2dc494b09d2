import Foundation
import Logging
import ParamCore

// SIGHUP: reload the config file (SPEC §6). Control thread.

extension Daemon {
    /// Reads the config file again and applies what can change live: the log level, the
    /// subscriber limits, `allow` and the token files, default actions the file changed, and declared parameters added,
    /// changed or removed (with their CV ports and sends). Everything else says in the log that
    /// it waits for a restart. A bad file changes nothing.
    func reload() {
        systemd.notifier?.reloading()
        defer { systemd.notifier?.send("READY=1\nSTATUS=\(systemd.status)") }
        let loaded: (settings: Settings, location: ConfigLocation, fileRead: Bool)
        do {
            loaded = try Settings.load(commandLine: commandLine, environment: ProcessInfo.processInfo.environment)
        } catch {
            log.error("SIGHUP: config not reloaded, keeping the settings in force: \(error)")
            return
        }
        let new = loaded.settings
        let old = settings
        var applied = applyLiveSettings(new, old: old)
        // Declared parameters added, changed or removed, CV ports, sends: live (Daemon+Parameters).
        let registry = applyParameterChanges(from: reloadDefaultActions(new, old: old), to: new.registry, connectCV: new.connectCV)
        applied.registry = registry
        applied.configPath = new.configPath
        applied.midi = new.midi
        applied.midiPrograms = new.midiPrograms
        applied.scenes = new.scenes
        applied.tokenFile = new.tokenFile
        applied.readTokenFile = new.readTokenFile
        applied.modulators = new.modulators
        applied.cues = new.cues
        applied.freewheelSeconds = new.freewheelSeconds
        settings = applied
        if new.scenes != old.scenes {
            controller.configureScenes(new.scenes)
            log.notice("scenes from the config file: \(new.scenes.isEmpty ? "none" : new.scenes.map(\.name).joined(separator: ", "))")
        }
        if new.modulators != old.modulators { modulatorsReloaded(from: old, to: new) }
        timecodeReloaded(from: old, to: new)
        midiConfigReloaded(from: old.midi)
        linkReloaded(from: old)
        midiConnectionsReloaded(from: old)
        reloadAccess(new)
        log.info("config reloaded from \(loaded.fileRead ? loaded.location.path : "(no file at \(loaded.location.path))")")
    }

    /// The settings SettingsTable marks live, applied (the log level and the subscriber limits
    /// at once); the rest of `old` kept, each change that waits for a restart said in the log.
    private func applyLiveSettings(_ new: Settings, old: Settings) -> Settings {
        var applied = old
        // What SettingsTable marks live is applied here or below; the rest waits for a restart.
        if new.logLevel != old.logLevel {
            StderrLogHandler.setLevel(new.logLevel)
            log.notice("log level now \(new.logLevel)")
        }
        if new.maxSubscribers != old.maxSubscribers || new.subscriptionTtlSeconds != old.subscriptionTtlSeconds {
            publisher.subscriptions.withLock { table in
                table.maxSubscribers = new.maxSubscribers
                table.timeToLiveSeconds = new.subscriptionTtlSeconds
            }
            log.notice("subscribers: at most \(new.maxSubscribers), lasting \(new.subscriptionTtlSeconds) s (for new and renewed subscriptions)")
        }
        for setting in SettingsTable.all {
            switch setting.reload {
            case .live:
                setting.copy(new, &applied)
            case .restart where setting.differs(new, old):
                log.notice("config: '\(setting.key)' changed; it cannot change while paramd runs and takes effect at the next start")
            case .restart:
                break
            }
        }
        return applied
    }

    /// Default actions the file changed, put in force: the old registry with them.
    private func reloadDefaultActions(_ new: Settings, old: Settings) -> ParameterRegistry {
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
        return registry
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
