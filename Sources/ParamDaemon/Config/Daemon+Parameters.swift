import Foundation
import Logging
import ParamCore

// Declared parameters added, changed and removed while paramd runs (SIGHUP, SPEC §8). Control thread.

extension Daemon {
    /// Moves from the registry in force, `current`, to the file's, `wanted`, live: declared
    /// parameters the file removes leave their slots, new ones take free slots, changed ones
    /// (range, domain, unit, CV port, sends) are set up again in theirs. A CV port is registered
    /// before the command that makes the renderer use it and unregistered only after the
    /// renderer stopped using it. Nothing already sounding jumps: a parameter that stays keeps
    /// sounding its value (clamped to a changed range), and one that leaves ends its animations
    /// with `/done i 0` and stops sounding where it was. Returns the registry now in force.
    func applyParameterChanges(from current: ParameterRegistry, to wanted: ParameterRegistry,
                               connectCV: [String: [String]]) -> ParameterRegistry {
        var registry = current
        var commands: [TimedCommand] = []
        var added: [ParameterID] = [], changed: [ParameterID] = [], removed: [(ParameterID, String)] = []
        var waitsForRestart: [String] = []

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
        guard !added.isEmpty || !changed.isEmpty || !removed.isEmpty else {
            if !waitsForRestart.isEmpty { log.notice("config: \(waitsForRestart.joined(separator: ", ")) change at the next start") }
            return registry
        }

        // The audio side: ports first, then one transaction of commands.
        var portProblems: [String] = []
        for p in added + changed where !p.isBuiltIn {
            let spec = registry[p]
            if spec.cv != nil {
                do { try jack.addCVPort(p, spec) } catch { portProblems.append("\(error)") }
            }
            let value = added.contains(p) ? spec.initial : audio.sounding(p)
            audio.makeResident(p)
            commands.append(TimedCommand(.declare(p, SlotSetup(spec, value: value))))
        }
        for (p, _) in removed { commands.append(TimedCommand(.undeclare(p))) }
        if jack.isConnected {
            let before = audio.counter(.periods)
            let pushed = commands.withUnsafeBufferPointer { audio.commands.push(all: $0) }
            if !pushed {
                log.error("SIGHUP: the command queue is full; parameter changes not applied")
                return current
            }
            // Ports the renderer no longer uses: once it has applied the commands (two periods).
            let dropping = removed.map(\.0) + changed.filter { !$0.isBuiltIn && registry[$0].cv == nil }
            if !dropping.isEmpty {
                if waitForAudioPeriods(reaching: before + 2, deadline: monotonicSeconds() + 1) {
                    for p in dropping { jack.removeCVPort(p) }
                } else {
                    log.warning("SIGHUP: JACK did not run two periods within a second; unused CV ports stay until the next start")
                }
            }
        }
        // else: parked; the next connection renders from the controller's registry.

        // The control side.
        let new = registry
        let before = controller
        putInForce(new, defaults: { p in added.contains(p) ? new[p].defaultAction : before.defaultAction(p) })
        if jack.isConnected {
            // A declared member set up again left its morph on the audio side: it follows
            // `morph` again, in its new range and domain, gliding in as a new binding does.
            let rebinds = controller.rebindCommands(changed.filter { !$0.isBuiltIn }, glide: controller.defaultAction(.morph))
            if !rebinds.isEmpty && !rebinds.withUnsafeBufferPointer({ audio.commands.push(all: $0) }) {
                log.error("SIGHUP: the command queue is full; \(rebinds.count) bound member(s) rest where they are")
            controller.forgetBindings(rebinds.map(\.command.parameter))
            }
            let connections = connectCV.filter { name, _ in added.contains { new[$0].name == name } || changed.contains { new[$0].name == name } }
            if !connections.isEmpty {
                for f in jack.connectCV(connections) { log.warning("cannot connect \(f)") }
            }
        }
        var said: [String] = []
        said += added.map { "\(new[$0].name) added" + (new[$0].cv != nil ? " (cv_\(new[$0].name))" : "") }
        said += changed.map { "\(new[$0].name) changed" }
        said += removed.map { "\($0.1) removed" }
        log.notice("parameters: \(said.joined(separator: ", "))")
        for problem in portProblems { log.error("SIGHUP: \(problem)") }
        if !waitsForRestart.isEmpty { log.notice("config: \(waitsForRestart.joined(separator: ", ")) change at the next start") }
        return new
    }

    /// Puts `registry` in force for the three that read it, as one `ParametersInForce` they
    /// share: the controller (targets kept; new slots start at their initial values), the OSC
    /// routes (the controller's, and OSCQuery's), and the publisher's subscriptions and sends
    /// (it stops its thread meanwhile). One call, so no reader is left on the old registry.
    /// Control thread.
    func putInForce(_ registry: ParameterRegistry, defaults: (ParameterID) -> DefaultAction) {
        let inForce = ParametersInForce(registry)
        controller.putInForce(inForce, initial: { registry[$0].initial }, defaults: defaults)
        publisher.putInForce(inForce)
    }
}
