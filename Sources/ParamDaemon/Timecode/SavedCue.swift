import Foundation
import ParamCore

/// A cue set with `/at` as the state file keeps it (SPEC §18): its timecode and its message as
/// the OSC bytes it arrived as (base64), so every argument comes back exactly. The config
/// file's cues are not kept: the file has them.
///
///     "cues" : [ { "time" : "01:00:10:00", "message" : "L3ZvbHVtZQAsZmYAAAAAAEAAAAA=" } ]
struct SavedCue: Codable, Equatable, Sendable {
    var time: String
    var message: String

    init(_ cue: CueBook.Cue) {
        time = cue.label.description
        message = Data(cue.message.encoded()).base64EncodedString()
    }

    /// The label and message, or why the saved cue cannot be used.
    func cue(rate: TimecodeRate?) -> Result<(TimecodeAddress, OSCMessage), ControlError> {
        let label: TimecodeAddress
        do {
            label = try TimecodeAddress(parsing: time, rate: rate)
        } catch {
            return .failure(ControlError("cue at \(time): \(error.description)"))
        }
        guard let bytes = Data(base64Encoded: message), case .message(let decoded)? = try? OSCPacket.decode(Array(bytes)) else {
            return .failure(ControlError("cue at \(time): its message does not decode"))
        }
        return .success((label, decoded))
    }

    /// The cues `/at` set, nil when there are none.
    static func of(_ book: CueBook) -> [SavedCue]? {
        let kept = book.cues.filter { !$0.fromConfig }.map(SavedCue.init)
        return kept.isEmpty ? nil : kept
    }
}
