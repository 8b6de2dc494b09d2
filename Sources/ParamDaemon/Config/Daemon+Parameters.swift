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
        let changes = ParameterChanges(from: current, to: wanted)
        guard !changes.isEmpty else {
            sayWaitsForRestart(changes)
            return changes.registry
        }
        guard let portProblems = sendParameterChanges(changes) else { return current }
        putParameterChangesInForce(changes, connectCV: connectCV)
        let new = changes.registry
        var said: [String] = []
        said += changes.added.map { "\(new[$0].name) added" + (new[$0].cv != nil ? " (cv_\(new[$0].name))" : "") }
        said += changes.changed.map { "\(new[$0].name) changed" }
        said += changes.removed.map { "\($0.1) removed" }
        log.notice("parameters: \(said.joined(separator: ", "))")
        for problem in portProblems { log.error("SIGHUP: \(problem)") }
        sayWaitsForRestart(changes)
        return new
    }

    private func sayWaitsForRestart(_ changes: ParameterChanges) {
        if !changes.waitsForRestart.isEmpty { log.notice("config: \(changes.waitsForRestart.joined(separator: ", ")) change at the next start") }
    }

    /// The audio side: CV ports first, then one transaction of commands, then (once the
    /// renderer applied them) the ports it no longer uses dropped. Returns the ports that could
    /// not be registered, or nil when the command queue was full and nothing was applied.
    private func sendParameterChanges(_ changes: ParameterChanges) -> [String]? {
        let registry = changes.registry, added = changes.added, changed = changes.changed, removed = changes.removed
        var commands: [TimedCommand] = []
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
                return nil
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
        return portProblems
    }

    /// The control side: the new registry in force, bound members following `morph` again,
    /// and new or changed CV ports connected.
    private func putParameterChangesInForce(_ changes: ParameterChanges, connectCV: [String: [String]]) {
        let new = changes.registry, added = changes.added, changed = changes.changed
        let before = controller
        putInForce(new, defaults: { p in added.contains(p) ? new[p].defaultAction : before.defaultAction(p) })
        guard jack.isConnected else { return }
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
