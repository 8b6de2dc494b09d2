import Testing
@testable import ParamCore

/// Musical time as SPEC §14 spells it: what each spelling comes to in beats, the errors for
/// everything else, and that no curve name is ever read as musical time (nor the reverse).
@Suite("Musical durations parse as SPEC §14 spells them")
struct MusicalDurationTests {
    /// Spelling, beats in 4/4, beats in 3/4.
    static let spellings: [(String, Double, Double)] = [
        ("1m", 4, 3), ("2m", 8, 6), ("4m", 16, 12),
        ("1n", 4, 4), ("2n", 2, 2), ("4n", 1, 1), ("8n", 0.5, 0.5), ("16n", 0.25, 0.25), ("3n", 4.0 / 3, 4.0 / 3),
        ("8t", 1.0 / 3, 1.0 / 3), ("8nt", 1.0 / 3, 1.0 / 3), ("4t", 2.0 / 3, 2.0 / 3),
        ("4n.", 1.5, 1.5), ("8n.", 0.75, 0.75), ("2n.", 3, 3),
        ("1m.", 6, 4.5), ("3mt", 8, 6),
        ("1b", 1, 1), ("1.5b", 1.5, 1.5), ("0.25b", 0.25, 0.25), ("3b.", 4.5, 4.5), ("3bt", 2, 2),
        (" 2m ", 8, 6), ("007n", 4.0 / 7, 4.0 / 7), ("1000000b", 1e6, 1e6),
    ]

    @Test(arguments: spellings)
    func eachSpellingComesToItsBeats(_ spelling: (String, Double, Double)) throws {
        let duration = try MusicalDuration.parse(spelling.0)
        #expect(abs(duration.beats(beatsPerBar: 4) - spelling.1) < 1e-12, "\(spelling.0) in 4/4")
        #expect(abs(duration.beats(beatsPerBar: 3) - spelling.2) < 1e-12, "\(spelling.0) in 3/4")
        #expect(MusicalDuration.startsLikeMusicalTime(spelling.0))
    }

    @Test func theBeatIsAQuarterNoteAndABarIsBeatsPerBarBeats() throws {
        #expect(try MusicalDuration.parse("4n").beats(beatsPerBar: 4) == 1)
        #expect(try MusicalDuration.parse("1n").beats(beatsPerBar: 4) == 4)
        #expect(try MusicalDuration.parse("1m").beats(beatsPerBar: 7) == 7)
        #expect(try MusicalDuration.parse("2m").beats(beatsPerBar: 5) == 10)
    }

    @Test func theCanonicalSpellingParsesBackToTheSameDuration() throws {
        for (spelling, _, _) in Self.spellings {
            let duration = try MusicalDuration.parse(spelling)
            #expect(try MusicalDuration.parse(duration.description) == duration, "\(spelling) → \(duration)")
        }
        #expect(try MusicalDuration.parse("8nt").description == "8t")
        #expect(try MusicalDuration.parse("1.5b").description == "1.5b")
        #expect(try MusicalDuration.parse("4n.").description == "4n.")
    }

    static let failures: [(String, MusicalDurationParseError)] = [
        ("", .empty), ("   ", .empty),
        ("4x", .unknownUnit("4x")), ("4", .unknownUnit("4")), ("4M", .unknownUnit("4M")),
        ("4nn", .unknownUnit("4nn")), ("4n..", .unknownUnit("4n..")), ("8tt", .unknownUnit("8tt")),
        ("8t.", .unknownUnit("8t.")), ("4n t", .unknownUnit("4n t")), ("1.5", .unknownUnit("1.5")),
        ("m", .missingCount("m")), ("n.", .missingCount("n.")), ("t", .missingCount("t")), ("b", .missingCount("b")),
        ("0m", .notPositive("0m")), ("0n", .notPositive("0n")), ("0.0b", .notPositive("0.0b")),
        ("-1b", .notPositive("-1b")), ("-2m", .notPositive("-2m")), ("-0m", .notPositive("-0m")),
        ("+2m", .notANumber("+2m")), ("1..5b", .notANumber("1..5b")), ("1.b", .notANumber("1.b")),
        (".5b", .notANumber(".5b")), ("1-2m", .notANumber("1-2m")), ("--1b", .notANumber("--1b")),
        ("1.5m", .notWhole("1.5m")), ("2.5n", .notWhole("2.5n")), ("1.5t", .notWhole("1.5t")),
        ("1000001b", .tooLarge("1000001b")), ("99999999999999999999m", .tooLarge("99999999999999999999m")),
    ]

    @Test(arguments: failures)
    func badSpellingsAreRejectedWithTheirReason(_ failure: (String, MusicalDurationParseError)) {
        #expect(throws: failure.1) { try MusicalDuration.parse(failure.0) }
    }

    @Test func theReasonsNameTheSpellingAndWhatIsWanted() {
        #expect(MusicalDurationParseError.unknownUnit("4x").description.contains("'4x' is not musical time"))
        #expect(MusicalDurationParseError.notPositive("0m").description.contains("greater than 0"))
        #expect(MusicalDurationParseError.notWhole("1.5m").description.contains("1.5b"))
        #expect(MusicalDurationParseError.tooLarge("2000000b").description.contains("1000000"))
    }

    /// Every name TimingCurve.parse knows, spelled as it accepts it.
    static var curveSpellings: [String] {
        var names = ["linear", "easeIn", "ease-in", "easeOut", "ease-out", "easeInEaseOut", "ease-in-out",
                     "default", "ease", "step-start", "step-end",
                     "cubic-bezier(0.25, 0.1, 0.25, 1)", "steps(4)", "steps(2, jump-none)", "curve(-4)",
                     "spring(0.5)", "spring(1, 100, 10)"]
        for direction in EasingDirection.allCases {
            names.append(direction.name + "Back")
            names.append(direction.name + "Back(2)")
            for easing in PennerEasing.allCases { names.append(direction.name + easing.name) }
        }
        return names
    }

    @Test func noCurveNameParsesAsMusicalTime() throws {
        let names = Self.curveSpellings
        #expect(names.count == 17 + 3 * 2 + 3 * PennerEasing.allCases.count)
        for name in names {
            _ = try TimingCurve.parse(name)  // a name the curve parser knows…
            #expect(!MusicalDuration.startsLikeMusicalTime(name), "\(name)")
            #expect(throws: MusicalDurationParseError.self, "\(name)") { try MusicalDuration.parse(name) }
        }
    }

    @Test func noMusicalTimeParsesAsACurve() {
        for (spelling, _, _) in Self.spellings {
            #expect(throws: CurveParseError.self, "\(spelling)") { try TimingCurve.parse(spelling) }
        }
    }

    @Test func startsLikeMusicalTimeTellsNumbersFromNames() {
        for text in ["2m", " 4n", "-1b", "+2m", ".5b", "0m", "4x"] { #expect(MusicalDuration.startsLikeMusicalTime(text), "\(text)") }
        for text in ["", "  ", "m", "linear", "delay", "quantize", "repeat", "Back"] {
            #expect(!MusicalDuration.startsLikeMusicalTime(text), "\(text)")
        }
    }
}
