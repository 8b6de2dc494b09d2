// Control thread: the string form of musical time. Nothing here runs on the audio path.

extension MusicalDuration {
    /// Control thread. Whether `text` is meant as musical time rather than a name: it starts
    /// (after whitespace) with a digit, a sign or a point. No curve or option name does, so a
    /// string argument where a duration may stand can be told apart before it is parsed, and
    /// `-1b` gets musical time's error rather than "unknown curve".
    public static func startsLikeMusicalTime(_ text: String) -> Bool {
        guard let first = text.utf8.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
            return false
        }
        return (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
            || first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
    }

    /// Control thread. Parses `Nm`, `Nn`, `Nt`, `Nb`, each optionally followed by `t` (triplet)
    /// or `.` (dotted); `Nt` is Tone.js's spelling of `Nnt`. N is a plain decimal number > 0,
    /// whole for bars and notes. Case-sensitive; whitespace around the string is ignored.
    public static func parse(_ text: String) throws(MusicalDurationParseError) -> MusicalDuration {
        let trimmed = text[...].trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        let spelled = String(trimmed)
        let countText = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }
        let tail = trimmed[countText.endIndex...]
        guard let unitCharacter = tail.first else { throw .unknownUnit(spelled) }

        let unit: Unit
        var modifier = Modifier.plain
        switch unitCharacter {
        case "m": unit = .bars
        case "n": unit = .note
        case "b": unit = .beats
        case "t": unit = .note; modifier = .triplet
        default: throw .unknownUnit(spelled)
        }
        let suffix = tail.dropFirst()
        switch (suffix, modifier) {
        case ("", _): break
        case ("t", .plain): modifier = .triplet
        case (".", .plain): modifier = .dotted
        default: throw .unknownUnit(spelled)
        }

        guard !countText.isEmpty else { throw .missingCount(spelled) }
        let count = try Self.count(countText, spelled: spelled)
        if unit != .beats && count != count.rounded() { throw .notWhole(spelled) }
        return MusicalDuration(count: count, unit: unit, modifier: modifier)
    }

    /// Digits with at most one point between digits; a leading `-` is read to say "greater
    /// than 0" rather than "not a number".
    private static func count(_ text: Substring, spelled: String) throws(MusicalDurationParseError) -> Double {
        let negative = text.first == "-"
        let digits = negative ? text.dropFirst() : text
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let magnitude = Double(digits) else {
            throw .notANumber(spelled)
        }
        guard !negative && magnitude > 0 else { throw .notPositive(spelled) }
        guard magnitude <= maximumCount else { throw .tooLarge(spelled) }
        return magnitude
    }
}
