import Testing
@testable import ParamCore

/// JACK frames against Link's clock: the offset from a bracketed reading, the output latency
/// added, and the way back.
@Suite("JACK frames map to Link's clock through a measured offset")
struct LinkClockMappingTests {
    @Test func aBracketedReadingGivesTheOffsetAtItsMidpoint() throws {
        let mapping = try #require(LinkClockMapping(jackMicrosBefore: 1_000_000, linkMicros: 903_110, jackMicrosAfter: 1_000_004))
        #expect(mapping.linkMinusJackMicros == 903_110 - 1_000_002)
        #expect(mapping.uncertaintyMicros == 2)
        #expect(LinkClockMapping(jackMicrosBefore: 10, linkMicros: 0, jackMicrosAfter: 9) == nil)
    }

    @Test func theNarrowerBracketWins() throws {
        let wide = try #require(LinkClockMapping(jackMicrosBefore: 0, linkMicros: 500, jackMicrosAfter: 100))
        let narrow = try #require(LinkClockMapping(jackMicrosBefore: 1_000, linkMicros: 1_452, jackMicrosAfter: 1_004))
        #expect(wide.tighter(narrow) == narrow)
        #expect(narrow.tighter(wide) == narrow)
        #expect(narrow.linkMinusJackMicros == 450)
    }

    /// 48 kHz, the period starting on frame 96,000 at JACK time 5 s, Link 96,898 µs behind
    /// (CLOCK_MONOTONIC_RAW against a slewed CLOCK_MONOTONIC, as measured on one machine), and
    /// 1,024 frames of output latency: frame 144,000 is heard 1 s + 21,333.3 µs after the
    /// period began.
    @Test func aFrameIsHeardAtItsJackTimePlusTheOutputLatencyOnLinksClock() {
        let mapping = LinkClockMapping(linkMinusJackMicros: -96_898)
        let micros = mapping.linkMicros(hearingFrame: 144_000, periodFirstFrame: 96_000, periodJackMicros: 5_000_000,
                                        sampleRate: 48_000, outputLatencyFrames: 1_024)
        #expect(micros == 5_000_000 - 96_898 + 1_000_000 + 21_333)
        let back = mapping.framePosition(heardAtLinkMicros: micros, periodFirstFrame: 96_000, periodJackMicros: 5_000_000,
                                         sampleRate: 48_000, outputLatencyFrames: 1_024)
        #expect(abs(back - 144_000) < 0.05)  // a microsecond is 0.048 frames at 48 kHz
    }

    @Test func aFrameBeforeThePeriodIsHeardBeforeIt() {
        let mapping = LinkClockMapping(linkMinusJackMicros: 0)
        #expect(mapping.linkMicros(hearingFrame: 95_952, periodFirstFrame: 96_000, periodJackMicros: 5_000_000,
                                   sampleRate: 48_000, outputLatencyFrames: 0) == 4_999_000)
    }

    /// What the renderer does with Link: the beat Link gives for the Link time at which the
    /// period's first frame is heard, carried into a Timeline, puts the bar line on a frame.
    @Test func linksBeatAtThePeriodsFirstFrameHeardPlacesTheBarLine() {
        let mapping = LinkClockMapping(linkMinusJackMicros: 250)
        let heard = mapping.linkMicros(hearingFrame: 96_000, periodFirstFrame: 96_000, periodJackMicros: 2_000_000,
                                       sampleRate: 48_000, outputLatencyFrames: 512)
        // Suppose Link says beat 3.5 at that time, 120 BPM, quantum 4: the bar line is half a
        // beat (12,000 frames) after the frame heard then.
        let timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: 48_000, beat: 3.5, atFrame: 96_000)
        let start = timeline.nextGridFrame(atOrAfter: 96_000, gridBeats: 4)
        #expect(start == 108_000)
        let barLineOnLink = mapping.linkMicros(hearingFrame: start, periodFirstFrame: 96_000, periodJackMicros: 2_000_000,
                                               sampleRate: 48_000, outputLatencyFrames: 512)
        #expect(barLineOnLink - heard == 250_000)
    }
}
