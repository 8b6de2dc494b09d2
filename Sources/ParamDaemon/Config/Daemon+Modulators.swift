import ParamCore

extension Settings {
    /// The config file's `mod` tables by parameter (SPEC §15), for the parameters in the registry.
    var modulatorsByID: [ParameterID: ModulatorRequest] {
        var byID: [ParameterID: ModulatorRequest] = [:]
        for (name, request) in modulators { if let p = registry.id(named: name) { byID[p] = request } }
        return byID
    }
}

extension Daemon {
    /// A reloaded config file's `mod` tables: each one added or changed starts (or replaces)
    /// its parameter's modulator; a parameter whose table lost its `mod` loses its modulator.
    /// Modulators the file did not change run on as OSC left them. Control thread.
    func modulatorsReloaded(from old: Settings, to new: Settings) {
        let before = old.modulatorsByID
        let wanted = new.modulatorsByID.filter { before[$0.key] != $0.value }
        var commands = controller.setModulators(wanted)
        for p in before.keys.sorted(by: { $0.index < $1.index }) where new.modulatorsByID[p] == nil {
            if let stop = controller.removeModulator(p) { commands.append(stop) }
        }
        let names = new.modulatorsByID.keys.map { new.registry[$0].name }.sorted()
        log.notice("modulators from the config file: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        guard jack.isConnected, !commands.isEmpty else { return }
        if !commands.withUnsafeBufferPointer({ audio.commands.push(all: $0) }) {
            log.error("SIGHUP: the command queue is full; modulators from the config file not applied")
        }
    }
}
