import Foundation
import Logging
import ParamCore

// MIDI on the control side (SPEC §10, docs/MIDI.md): the mapping table the audio thread runs
// (config mappings, then learned ones), `/midi/learn`, `/midi/forget`, `/midi/map`, and the
// learned mappings in the state file. Control thread.

/// A learned mapping as the state file keeps it.
struct SavedMIDIMapping: Codable, Equatable, Sendable {
    var param: String
    var kind: String
    var number: Int
    var lsb: Int?
    /// 1…16, or 0 for any channel.
    var channel: Int

    func problem() -> String? {
        guard let kind = MIDIKind(name: kind), MIDIKind.learnable.contains(kind) else { return "unknown kind '\(kind)'" }
        guard (0...16).contains(channel) else { return "\(param): channel \(channel) is not 0…16" }
        guard (0...16383).contains(number), (0...127).contains(lsb ?? 0) else { return "\(param): number out of range" }
        return nil
    }

    var config: MIDIMappingConfig? {
        guard problem() == nil, let k = MIDIKind(name: kind) else { return nil }
        var c = MIDIMappingConfig(param: param, kind: k)
        c.number = number
        c.lsb = lsb ?? 0
        c.channel = channel
        return c
    }

    init(_ c: MIDIMappingConfig) {
        param = c.param
        kind = c.kind.name
        number = c.number
        lsb = c.kind == .cc14 ? c.lsb : nil
        channel = c.channel
    }
}

/// What the control thread keeps of MIDI: the engine (shared with every JACK client's process
/// callback), the learned mappings, and the learn that waits for a controller.
final class MIDIControl {
    let engine = MIDIEngine()
    /// Learned with `/midi/learn` (or restored from the state file), in the order learned.
    var learned: [MIDIMappingConfig] = []
    /// A `/midi/learn` waiting for a controller to move: the parameter, the kind asked for
    /// (nil: whatever moves first), and who asked.
    var waiting: (param: String, kind: MIDIKind?, channel: ReplyChannel)?
    /// The `/a4` tuning the published table was built with (`note = "frequency"`).
    var publishedA4 = 440.0

    var savedLearned: [SavedMIDIMapping] { learned.map(SavedMIDIMapping.init) }
}

extension Daemon {
    /// At start: the learned mappings the state file kept, then the first table.
    func startMIDI() {
        midi.learned = stateSaving.restoredMIDI.compactMap(\.config).filter { controller.registry.id(named: $0.param) != nil }
        if midi.learned.count < stateSaving.restoredMIDI.count {
            let left = stateSaving.restoredMIDI.filter { $0.config.map { controller.registry.id(named: $0.param) == nil } ?? true }
            log.warning("MIDI: \(left.count) learned mapping(s) in the state file left out: \(left.map { "\($0.param) (\($0.problem() ?? "no such parameter"))" }.joined(separator: ", "))")
        }
        if stateSaving.lastSaved != nil { stateSaving.lastSaved = SavedState(controller, midi: midi.savedLearned) }
        publishMIDI()
        let n = settings.midi.count + midi.learned.count
        if n > 0 { log.info("MIDI: \(settings.midi.count) mapping(s) from the config, \(midi.learned.count) learned") }
    }

    /// Every mapping in force, config first: what the audio thread runs and `/midi/map` lists.
    var midiMappings: [(config: MIDIMappingConfig, learned: Bool)] {
        settings.midi.map { ($0, false) } + midi.learned.map { ($0, true) }
    }

    /// Builds the table from the config's and the learned mappings against the registry in
    /// force and hands it to the audio thread (which takes it at its next period).
    func publishMIDI() {
        let a4 = controller.a4
        midi.publishedA4 = a4
        var table: [MIDIMapping] = []
        for (c, _) in midiMappings {
            guard let m = c.mapping(controller.registry, a4: a4) else { continue }
            table.append(m)
        }
        if table.count > MIDIEngine.capacity {
            logRateLimited("MIDI: too many mappings; the first \(MIDIEngine.capacity) are used", [:])
        }
        midi.engine.publish(table)
        midi.engine.setProgramsWanted(!settings.midiPrograms.isEmpty)
    }

    /// A duty, after every wake: frees a table the audio side let go of, follows `/a4` for
    /// `note = "frequency"` mappings, and hands a waiting learn the controller that moved.
    func midiDuties() {
        midi.engine.collectRetired()
        midiProgramDuties()
        if controller.a4 != midi.publishedA4 && settings.midi.contains(where: { $0.kind == .noteFrequency }) { publishMIDI() }
        while let event = midi.engine.learnRing.pop() {
            guard let waiting = midi.waiting else { continue }
            guard let c = learnedMapping(from: event, param: waiting.param, kind: waiting.kind) else { continue }
            // One learned mapping per parameter, and one parameter per learned controller.
            midi.learned.removeAll { $0.param == c.param || ($0.kind == c.kind && $0.number == c.number && $0.lsb == c.lsb && $0.channel == c.channel) }
            midi.learned.append(c)
            midi.waiting = nil
            midi.engine.setLearning(false)
            publishMIDI()
            log.info("MIDI: learned \(c.source) → \(c.param)")
            waiting.channel.send(OSCMessage("/midi/learned", [.string(c.param), .string(c.kind.name), .int32(Int32(c.number)), .int32(Int32(c.channel))]))
        }
    }

    /// The mapping a controller event makes for a learn of `kind` (nil: any), or nil if it is
    /// not the kind asked for.
    func learnedMapping(from event: MIDIControllerEvent, param: String, kind: MIDIKind?) -> MIDIMappingConfig? {
        var c = MIDIMappingConfig(param: param, kind: event.kind)
        c.channel = Int(event.channel)
        c.number = Int(event.number)
        switch kind {
        case nil:
            break
        case .cc14?:
            // A 14-bit pair is controllers n and n + 32 (MIDI 1.0): learn it from its MSB.
            guard event.kind == .cc, event.number < 32 else { return nil }
            c.kind = .cc14
            c.lsb = Int(event.number) + 32
        case let k?:
            guard event.kind == k else { return nil }
        }
        if c.kind == .pitchBend { c.number = 0 }
        return c
    }

    /// `/midi/learn`, `/midi/forget`, `/midi/map`.
    func midiRequest(_ message: OSCMessage, _ action: RouteAction, replyingTo channel: ReplyChannel) {
        let args = message.arguments
        func parameterName() -> String? {
            guard let name = args.first?.stringValue else {
                refuse(message, "expects the name of a parameter", replyingTo: channel)
                return nil
            }
            guard controller.registry.id(named: name) != nil else {
                refuse(message, "no parameter named '\(name)'", replyingTo: channel)
                return nil
            }
            return name
        }
        switch action {
        case .midiLearn:
            guard (1...2).contains(args.count) else { return refuse(message, "expects a parameter and optionally a kind (cc, cc14, nrpn, pitchbend)", replyingTo: channel) }
            guard let name = parameterName() else { return }
            var kind: MIDIKind? = nil
            if args.count == 2 {
                guard let text = args[1].stringValue, text == "any" || MIDIKind(name: text).map(MIDIKind.learnable.contains) == true else {
                    return refuse(message, "the kind is cc, cc14, nrpn, pitchbend or any", replyingTo: channel)
                }
                kind = MIDIKind(name: text)
            }
            if let previous = midi.waiting {
                previous.channel.send(OSCMessage("/error", [.string("/midi/learn"), .string("learn for \(previous.param) replaced by a learn for \(name)")]))
            }
            // Controllers heard before this request are not an answer to it.
            while midi.engine.learnRing.pop() != nil {}
            midi.waiting = (name, kind, channel)
            midi.engine.setLearning(true)
            channel.send(OSCMessage("/midi/learning", [.string(name), .string(kind?.name ?? "any")]))
        case .midiForget:
            guard args.count == 1 else { return refuse(message, "expects the name of a parameter", replyingTo: channel) }
            guard let name = parameterName() else { return }
            let before = midi.learned.count
            midi.learned.removeAll { $0.param == name }
            let removed = before - midi.learned.count
            if let waiting = midi.waiting, waiting.param == name {
                midi.waiting = nil
                midi.engine.setLearning(false)
            }
            if removed > 0 {
                publishMIDI()
                log.info("MIDI: forgot \(removed) learned mapping(s) of \(name)")
            }
            channel.send(OSCMessage("/midi/forgot", [.string(name), .int32(Int32(removed))]))
        case .midiMap:
            guard args.isEmpty else { return refuse(message, "takes no arguments", replyingTo: channel) }
            let all = midiMappings
            for (c, learned) in all {
                let domain = c.domain ?? controller.registry.id(named: c.param).map { controller.registry[$0].domain } ?? .linear
                channel.send(OSCMessage("/midi/mapping", [
                    .string(c.param), .string(c.kind.name), .int32(Int32(c.number)),
                    .int32(c.kind == .cc14 ? Int32(c.lsb) : -1), .int32(Int32(c.channel)),
                    .float32(Float(c.seconds)), .string(c.curve.description), .string(domain.name),
                    .int32(c.feedback ? 1 : 0), .string(learned ? "learned" : "config"),
                ]))
            }
            channel.send(OSCMessage("/midi/map/end", [.int32(Int32(all.count))]))
        default:
            break
        }
    }

    /// After SIGHUP: the config's mappings may have changed, and so may the registry.
    func midiConfigReloaded(from old: [MIDIMappingConfig]) {
        midi.learned.removeAll { controller.registry.id(named: $0.param) == nil }
        publishMIDI()
        if settings.midi != old { log.notice("MIDI: \(settings.midi.count) mapping(s) from the config") }
        if !settings.midiPrograms.isEmpty { log.info("MIDI: \(settings.midiPrograms.count) program change(s) recall scenes") }
    }
}

extension Daemon {
    /// `/status` pairs for MIDI, after the others: channel messages received on midi_in,
    /// animations they started, feedback values sent, and what did not fit (docs/OSC.md).
    var midiStatusPairs: [(String, OSCArgument)] {
        [("midi_received", .int32(Int32(clamping: midi.engine.counter(.received)))),
         ("midi_started", .int32(Int32(clamping: midi.engine.counter(.started)))),
         ("midi_feedback", .int32(Int32(clamping: midi.engine.counter(.feedbackSent)))),
         ("midi_dropped", .int32(Int32(clamping: midi.engine.counter(.dropped))))]
    }
}
