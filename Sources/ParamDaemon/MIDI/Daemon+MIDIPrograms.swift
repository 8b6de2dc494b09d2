import Foundation
import Logging
import ParamCore

// Scene recalls on a MIDI program change (SPEC §13): the audio thread hands each program change
// over through a ring while some `[[midi]] program = N` table wants them, and the control thread
// recalls the scene as a `/scene/recall` from nowhere would (refusals go to the log). The recall
// starts at the first period after the control thread wakes, not at the event's own frame.
// Control thread.

extension Daemon {
    /// A duty, after every wake: the program changes heard since.
    func midiProgramDuties() {
        while let change = midi.engine.programRing.pop() {
            for c in settings.midiPrograms where c.answers(change) {
                log.info("MIDI: program \(change.program) on channel \(change.channel) recalls scene '\(c.scene)'")
                let bytes = recallMessage(c).encoded()
                bytes.withUnsafeBytes { handlePacket($0, replyingTo: .stream(label: "MIDI program \(change.program)", send: { _ in })) }
            }
        }
    }

    /// `/scene/recall s name`, with the table's duration and curve when it gives either (the
    /// scene's default action for the other).
    func recallMessage(_ c: MIDIProgramConfig) -> OSCMessage {
        var arguments: [OSCArgument] = [.string(c.scene)]
        if c.seconds != nil || c.curve != nil {
            let action = controller.scenes.scene(named: c.scene)?.recallAction ?? Scene.standardAction
            arguments.append(.double(c.seconds ?? action.seconds))
            arguments.append(.string((c.curve ?? action.curve).description))
        }
        return OSCMessage("/scene/recall", arguments)
    }
}
