// Control thread: durations in bars and beats as SPEC §14 spells them (Tone.js's notation).
// Nothing here runs on the audio path; the audio side gets beats, already a Double.

/// A length in musical time: `2m` (two bars), `8n` (an eighth note), `8t` or `8nt` (an eighth
/// note triplet), `4n.` (a dotted quarter), `1.5b` (one and a half beats). The beat is a quarter
/// note, so `4n` is one beat and `1m` is beats-per-bar beats. docs/MUSICAL-TIME.md.
public struct MusicalDuration: Equatable, Sendable, CustomStringConvertible {
    public enum Unit: Equatable, Sendable {
        /// `m`: bars of beats-per-bar beats.
        case bars
        /// `n`: a 1/N note; `4n` is one beat.
        case note
        /// `b`: beats (quarter notes); the only unit whose count may be fractional.
        case beats
    }

    public enum Modifier: Equatable, Sendable {
        case plain
        /// `t`: × 2/3.
        case triplet
        /// `.`: × 1.5.
        case dotted

        var factor: Double {
            switch self {
            case .plain: return 1
            case .triplet: return 2.0 / 3.0
            case .dotted: return 1.5
            }
        }
    }

    /// N as written: a whole number for bars and notes, any number > 0 for beats.
    public let count: Double
    public let unit: Unit
    public let modifier: Modifier

    /// The largest N accepted (a million bars at 20 BPM is far past the 24 hours any duration
    /// may take; the caller holds the seconds it comes to at the current tempo to that limit).
    public static let maximumCount = 1_000_000.0

    public init(count: Double, unit: Unit, modifier: Modifier = .plain) {
        self.count = count
        self.unit = unit
        self.modifier = modifier
    }

    /// Control thread. Its length in beats (quarter notes), given the bar's length.
    public func beats(beatsPerBar: Int) -> Double {
        let plain: Double
        switch unit {
        case .bars: plain = count * Double(beatsPerBar)
        case .note: plain = 4 / count
        case .beats: plain = count
        }
        return plain * modifier.factor
    }

    /// The canonical spelling: `2m`, `8t`, `4n.`, `1.5b`.
    public var description: String {
        let number = count == count.rounded() && abs(count) < 1e15 ? String(Int64(count)) : String(count)
        switch (unit, modifier) {
        case (.note, .triplet): return number + "t"
        case (.note, .dotted): return number + "n."
        case (.note, .plain): return number + "n"
        case (.bars, _): return number + "m" + modifier.suffix
        case (.beats, _): return number + "b" + modifier.suffix
        }
    }
}

extension MusicalDuration.Modifier {
    var suffix: String {
        switch self {
        case .plain: return ""
        case .triplet: return "t"
        case .dotted: return "."
        }
    }
}

/// Why a string is not musical time; `description` is the `/error` reason.
public enum MusicalDurationParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Empty, or only whitespace.
    case empty
    /// No number before the unit (`m`, `n.`).
    case missingCount(String)
    /// The count is not a decimal number (`1e3m`, `0x4n`, `1..5b`).
    case notANumber(String)
    /// The count is 0 or negative (`0m`, `-1b`).
    case notPositive(String)
    /// A bar or note count with a fraction (`1.5m`, `2.5n`): only beats may be fractional.
    case notWhole(String)
    /// The count is over `MusicalDuration.maximumCount`.
    case tooLarge(String)
    /// The unit is not `m`, `n` or `b`, or a suffix is not `t` or `.` (`4x`, `4nn`).
    case unknownUnit(String)

    public var description: String {
        switch self {
        case .empty:
            return "musical time is empty (write 2m, 4n, 8t, 4n., 1.5b)"
        case let .missingCount(text):
            return "'\(text)' has no count before its unit (write 2m, 4n, 8t, 4n., 1.5b)"
        case let .notANumber(text):
            return "'\(text)': the count must be a plain decimal number"
        case let .notPositive(text):
            return "'\(text)': the count must be greater than 0"
        case let .notWhole(text):
            return "'\(text)': bars and notes are counted in whole numbers (use b for fractional beats: 1.5b)"
        case let .tooLarge(text):
            return "'\(text)': the count must be at most \(Int(MusicalDuration.maximumCount))"
        case let .unknownUnit(text):
            return "'\(text)' is not musical time: the unit is m (bars), n (1/N note) or b (beats), optionally followed by t (triplet) or . (dotted)"
        }
    }
}
