// Control thread: the checks `/tempo`, `tempo =` and `beats-per-bar =` make before a value
// reaches a timeline. SPEC §14: a tempo outside 20…999 BPM is an error, not a clamp, because
// the tempo is not a parameter.

/// Why a tempo or a bar length was refused; `description` is the `/error` or config reason.
public enum TimelineSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    case tempoOutOfRange(Double)
    case beatsPerBarOutOfRange(Double)

    public var description: String {
        switch self {
        case let .tempoOutOfRange(bpm):
            return "the tempo must be between \(Int(Timeline.minimumTempo)) and \(Int(Timeline.maximumTempo)) BPM, got \(bpm)"
        case let .beatsPerBarOutOfRange(beats):
            return "beats-per-bar must be a whole number from 1 to \(Timeline.maximumBeatsPerBar), got \(beats)"
        }
    }
}

extension Timeline {
    /// Control thread. `bpm` when it is a tempo paramd accepts (20…999, Link's range).
    public static func checkedTempo(_ bpm: Double) throws(TimelineSettingError) -> Double {
        guard tempoRange.contains(bpm) else { throw .tempoOutOfRange(bpm) }
        return bpm
    }

    /// Control thread. `beats` as a bar length when it is a whole number from 1 to 64.
    public static func checkedBeatsPerBar(_ beats: Double) throws(TimelineSettingError) -> Int {
        guard beats == beats.rounded(), beats >= 1, beats <= Double(maximumBeatsPerBar) else {
            throw .beatsPerBarOutOfRange(beats)
        }
        return Int(beats)
    }
}
