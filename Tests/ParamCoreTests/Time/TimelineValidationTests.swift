import Testing
@testable import ParamCore

/// SPEC §14: a tempo outside 20…999 BPM, or a bar that is not 1…64 whole beats, is refused
/// with a reason, not clamped.
@Suite("Tempi and bar lengths are checked before they reach a timeline")
struct TimelineValidationTests {
    @Test(arguments: [20.0, 93, 120, 140, 999, 20.5])
    func aTempoInLinksRangeIsAccepted(_ bpm: Double) throws {
        #expect(try Timeline.checkedTempo(bpm) == bpm)
    }

    @Test(arguments: [0.0, -120, 19.99, 999.01, 1000, .infinity, -.infinity, .nan])
    func aTempoOutsideItIsRefusedWithTheRange(_ bpm: Double) {
        #expect(throws: TimelineSettingError.self) { try Timeline.checkedTempo(bpm) }
        #expect(TimelineSettingError.tempoOutOfRange(1000).description == "the tempo must be between 20 and 999 BPM, got 1000.0")
    }

    @Test func barsAreWholeBeatsFromOneTo64() throws {
        #expect(try Timeline.checkedBeatsPerBar(4) == 4)
        #expect(try Timeline.checkedBeatsPerBar(1) == 1)
        #expect(try Timeline.checkedBeatsPerBar(64) == 64)
        for beats in [0.0, 3.5, 65, -4, .nan, .infinity] {
            #expect(throws: TimelineSettingError.self, "\(beats)") { try Timeline.checkedBeatsPerBar(beats) }
        }
        #expect(TimelineSettingError.beatsPerBarOutOfRange(0).description.contains("from 1 to 64, got 0.0"))
    }
}
