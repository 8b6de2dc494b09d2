import ParamCore

/// What a reload changes among the parameters (Daemon+Parameters.swift): the registry it leads
/// to from the one in force, and the slots added, changed and removed on the way. Pure; the
/// daemon then sets up the audio and control sides. Control thread.
struct ParameterChanges {
    /// The registry in force once the changes are applied.
    var registry: ParameterRegistry
    var added: [ParameterID] = []
    var changed: [ParameterID] = []
    var removed: [(ParameterID, String)] = []
    /// What the file changes that waits for a restart, as the log says it.
    var waitsForRestart: [String] = []

    var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    init(from current: ParameterRegistry, to wanted: ParameterRegistry) {
        registry = current
        // Built-ins: sends apply live; a CV port added or dropped waits for a restart.
        for p in ParameterID.builtIns {
            let before = registry[p], after = wanted[p]
            if before.sends != after.sends { registry.configureBuiltIn(p) { $0.sends = after.sends }; changed.append(p) }
            if before.cv != after.cv { waitsForRestart.append("\(before.name).cv") }
        }
        // Added first, into slots free before this reload, so that no slot is left and taken
        // in one go (the renderer and the slot's CV port must let go of the old one first).
        for q in wanted.declaredIDs where current.id(named: wanted[q].name) == nil {
            do {
                added.append(try registry.declare(wanted[q]))
            } catch {
                waitsForRestart.append("\(wanted[q].name) (\(error.reason); its slot frees at the next start)")
            }
        }
        for p in current.declaredIDs {
            let name = current[p].name
            if let q = wanted.id(named: name) {
                let a = current[p]
                var b = wanted[q]
                b.defaultAction = a.defaultAction  // already applied
                b.initial = a.initial              // applies at the next start
                if a != b {
                    registry.replace(p, with: b)
                    changed.append(p)
                }
            } else {
                registry.remove(p)
                removed.append((p, name))
            }
        }
    }
}
