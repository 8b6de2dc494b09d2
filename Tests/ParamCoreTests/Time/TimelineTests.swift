import Testing
@testable import ParamCore

/// paramd's own timeline (SPEC §14), by exact JACK frame: beats from the first frame rendered,
/// tempo changes and glides keeping the beat continuous, the grid, seconds against beats.
@Suite("The internal timeline counts beats in JACK frames")
struct TimelineTests {
    static func timeline(tempo: Double = 120, beatsPerBar: Int = 4, sampleRate: Double = 48_000,
                         origin: UInt64 = 0) -> Timeline {
        Timeline(tempo: tempo, beatsPerBar: beatsPerBar, sampleRate: sampleRate, originFrame: origin)
    }

    @Test func at120BPMAnd48kHzABeatIsExactly24000FramesAndABar96000() {
        let timeline = Self.timeline()
        #expect(timeline.beat(at: 0) == 0)
        #expect(timeline.beat(at: 24_000) == 1)
        #expect(timeline.beat(at: 96_000) == 4)
        #expect(timeline.beat(at: 12_000) == 0.5)
        #expect(timeline.framePosition(ofBeat: 4) == 96_000)
        #expect(timeline.frames(overBeats: 4, from: 0) == 96_000)
        #expect(timeline.frames(overBeats: 4, from: 12_345) == 96_000)
        #expect(timeline.seconds(overBeats: 4, from: 7) == 2)
    }

    @Test func beatZeroFallsOnTheFirstFrameRendered() {
        let timeline = Self.timeline(origin: 1_000)
        #expect(timeline.beat(at: 1_000) == 0)
        #expect(timeline.beat(at: 25_000) == 1)
        #expect(timeline.beat(at: 0) == -1.0 / 24)
        #expect(timeline.nextGridFrame(atOrAfter: 1_001, gridBeats: 4) == 97_000)
    }

    @Test func aDayIntoALateOriginTheBeatIsStillExact() {
        let origin: UInt64 = 1 << 40
        let timeline = Self.timeline(origin: origin)
        let beatsInADay: UInt64 = 24 * 3600 * 2
        #expect(timeline.beat(at: origin + beatsInADay * 24_000) == Double(beatsInADay))
        #expect(timeline.nextGridFrame(atOrAfter: origin + beatsInADay * 24_000 - 1, gridBeats: 4) == origin + beatsInADay * 24_000)
    }

    @Test func theNextGridLineIsAtOrAfterTheFrame() {
        let timeline = Self.timeline()
        #expect(timeline.nextGridFrame(atOrAfter: 0, gridBeats: 4) == 0)
        #expect(timeline.nextGridFrame(atOrAfter: 1, gridBeats: 4) == 96_000)
        #expect(timeline.nextGridFrame(atOrAfter: 95_999, gridBeats: 4) == 96_000)
        #expect(timeline.nextGridFrame(atOrAfter: 96_000, gridBeats: 4) == 96_000)
        #expect(timeline.nextGridFrame(atOrAfter: 96_001, gridBeats: 4) == 192_000)
        #expect(timeline.nextGridFrame(atOrAfter: 24_001, gridBeats: 1) == 48_000)
        #expect(timeline.nextGridFrame(atOrAfter: 1, gridBeats: 8) == 192_000)
        #expect(timeline.nextGridFrame(atOrAfter: 1, gridBeats: 1.0 / 3) == 8_000)
        #expect(timeline.nextGridFrame(atOrAfter: 5, gridBeats: 0) == 5)
        #expect(timeline.nextGridFrame(atOrAfter: 5, gridBeats: .nan) == 5)
    }

    /// 93 BPM at 48 kHz: a beat is 30,967.74… frames, so beat k starts on frame
    /// ⌈k × 2,880,000 / 93⌉, computed here in integers.
    @Test(arguments: [(93.0, 48_000.0), (140.0, 44_100.0), (999.0, 96_000.0), (20.0, 48_000.0), (127.3, 48_000.0)])
    func aBeatOfNoWholeNumberOfFramesStartsOnTheFirstFrameAfterIt(_ setting: (Double, Double)) {
        let (tempo, sampleRate) = setting
        let timeline = Self.timeline(tempo: tempo, sampleRate: sampleRate)
        // bpm·frames per beat = 60 × rate; for 127.3 BPM scale by 10 to keep integers.
        let scale: UInt64 = tempo == tempo.rounded() ? 1 : 10
        let numerator = UInt64(60 * sampleRate) * scale, denominator = UInt64(tempo * Double(scale))
        var previous: UInt64 = 0
        for k: UInt64 in 1...1_000 {
            let expected = (k * numerator + denominator - 1) / denominator
            let frame = timeline.nextGridFrame(atOrAfter: previous + 1, gridBeats: 1)
            #expect(frame == expected, "beat \(k) at \(tempo) BPM, \(sampleRate) Hz")
            #expect(timeline.beat(at: frame - 1) < Double(k) && timeline.beat(at: frame) >= Double(k) - 1e-9)
            previous = frame
        }
    }

    @Test func aTempoStepKeepsTheBeatContinuous() {
        var timeline = Self.timeline()
        timeline.setTempo(60, atFrame: 48_000)
        #expect(timeline.beat(at: 48_000) == 2)
        #expect(timeline.beat(at: 96_000) == 3)
        #expect(timeline.tempo(at: 47_999) == 120)  // the segment before the change
        #expect(timeline.beat(at: 24_000) == 1)
        #expect(timeline.tempo(at: 48_000) == 60)
        #expect(timeline.nextGridFrame(atOrAfter: 48_001, gridBeats: 4) == 48_000 + 2 * 48_000)
    }

    /// SPEC §14's example: `/tempo ff 60 0` halfway through a 2m fade at 120 BPM: what is left
    /// (4 beats) now takes 4 s, so the fade ends on the bar it aimed at, frame 288,000.
    @Test func aTempoChangeHalfwayThroughTwoBarsMovesTheirEndToTheSameBeat() {
        var timeline = Self.timeline()
        let end = timeline.firstFrame(reachingBeat: 8, notBefore: 0)
        #expect(end == 192_000)
        timeline.setTempo(60, atFrame: 96_000)
        #expect(timeline.firstFrame(reachingBeat: 8, notBefore: 96_000) == 288_000)
        #expect(timeline.nextGridFrame(atOrAfter: 96_001, gridBeats: 4) == 288_000)
    }

    /// 120 → 60 BPM over 96,000 frames: 96,000 × (120 + 60) / 2 / 2,880,000 = 3 beats; halfway
    /// the tempo is 90 and the beat (120·d − 60·d²/192,000) / 2,880,000 = 1.75.
    @Test func aGlideIsLinearInTempoAndItsBeatsAreTheIntegral() {
        var timeline = Self.timeline()
        timeline.setTempo(60, atFrame: 0, glideFrames: 96_000)
        #expect(timeline.tempo(at: 48_000) == 90)
        #expect(timeline.tempo(at: 96_000) == 60)
        #expect(timeline.tempo(at: 500_000) == 60)
        #expect(timeline.beat(at: 48_000) == 1.75)
        #expect(timeline.beat(at: 96_000) == 3)
        #expect(timeline.beat(at: 144_000) == 4)
        #expect(abs(timeline.framePosition(ofBeat: 1.75) - 48_000) < 1e-6)
        #expect(abs(timeline.framePosition(ofBeat: 3) - 96_000) < 1e-6)
        #expect(timeline.framePosition(ofBeat: 4) == 144_000)
        // Beat 1 falls where 0.0003125·d² − 120·d + 2,880,000 = 0: d = 25,722.88…
        let d = (120 - (120.0 * 120 - 4 * 0.0003125 * 2_880_000).squareRoot()) / (2 * 0.0003125)
        #expect(timeline.nextGridFrame(atOrAfter: 1, gridBeats: 1) == UInt64(d.rounded(.up)))
        #expect(timeline.nextGridFrame(atOrAfter: 1, gridBeats: 4) == 144_000)
    }

    @Test func aGlideUpReachesItsBeatsSoonerAndNeverStepsTheBeat() {
        var timeline = Self.timeline(tempo: 60)
        timeline.setTempo(180, atFrame: 48_000, glideFrames: 48_000)
        // Beat 1 at frame 48,000; the glide adds 48,000 × 120 / 2,880,000 = 2 beats.
        #expect(timeline.beat(at: 96_000) == 3)
        var previous = timeline.beat(at: 47_000)
        for frame in stride(from: UInt64(47_001), through: 100_000, by: 1) {
            let beat = timeline.beat(at: frame)
            let step = beat - previous
            #expect(step > 0 && step <= 180.0 / 2_880_000 + 1e-12, "frame \(frame)")
            previous = beat
        }
        for k in 2...6 {
            let frame = timeline.firstFrame(reachingBeat: Double(k), notBefore: 0)
            #expect(timeline.beat(at: frame - 1) < Double(k) && timeline.beat(at: frame) >= Double(k) - 1e-9, "beat \(k)")
        }
    }

    @Test func aChangeDuringAGlideStartsFromTheTempoThatSoundsThen() {
        var timeline = Self.timeline()
        timeline.setTempo(60, atFrame: 0, glideFrames: 96_000)
        timeline.setTempo(120, atFrame: 48_000)
        #expect(timeline.beat(at: 48_000) == 1.75)
        #expect(timeline.tempo(at: 48_000) == 120)
        #expect(timeline.beat(at: 72_000) == 2.75)
        timeline.setTempo(60, atFrame: 72_000, glideFrames: 24_000)
        #expect(timeline.tempo(at: 72_000) == 120)
        #expect(timeline.tempo(at: 84_000) == 90)
    }

    @Test func aChangeForAFrameBeforeTheLastOneTakesEffectAtTheLastOne() {
        var timeline = Self.timeline()
        timeline.setTempo(60, atFrame: 48_000)
        timeline.setTempo(240, atFrame: 10)
        #expect(timeline.anchorFrame == 48_000)
        #expect(timeline.current.startTempo == 240 && timeline.previous.startTempo == 60)
        #expect(timeline.beat(at: 48_000) == 2)
        #expect(timeline.beat(at: 60_000) == 3)
    }

    @Test func secondsAndBeatsConvertAcrossATempoChange() {
        var timeline = Self.timeline()
        timeline.setTempo(60, atFrame: 48_000)  // 2 beats in the first second, then 1 a second
        #expect(timeline.seconds(overBeats: 4, from: 0) == 3)
        #expect(timeline.beats(overSeconds: 3, from: 0) == 4)
        #expect(timeline.beats(overSeconds: 0.5, from: 24_000) == 1)
        #expect(timeline.beats(overSeconds: 0.5, from: 36_000) == 0.75)
        #expect(timeline.seconds(overBeats: 1, from: 48_000) == 1)
        var glide = Self.timeline()
        glide.setTempo(60, atFrame: 0, glideFrames: 96_000)
        #expect(glide.beats(overSeconds: 2, from: 0) == 3)
        #expect(abs(glide.seconds(overBeats: 3, from: 0) - 2) < 1e-12)
    }

    @Test func tempiAndBarsOutsideTheirRangesAreHeldToThem() {
        #expect(Self.timeline(tempo: 0).tempo(at: 0) == 20)
        #expect(Self.timeline(tempo: .nan).tempo(at: 0) == 20)
        #expect(Self.timeline(tempo: -5).tempo(at: 0) == 20)
        #expect(Self.timeline(tempo: 5_000).tempo(at: 0) == 999)
        #expect(Self.timeline(beatsPerBar: 0).beatsPerBar == 1)
        var timeline = Self.timeline()
        timeline.setTempo(.infinity, atFrame: 0)
        #expect(timeline.tempo(at: 0) == 999)
    }

    @Test func beatInBarCountsFromTheBarLine() {
        let timeline = Self.timeline(beatsPerBar: 3)
        #expect(timeline.beatInBar(at: 0) == 0)
        #expect(timeline.beatInBar(at: 24_000) == 1)
        #expect(timeline.beatInBar(at: 72_000) == 0)
        #expect(timeline.beatInBar(at: 84_000) == 0.5)
        #expect(Self.timeline(origin: 24_000).beatInBar(at: 0) == 3)
    }
}

/// A timeline carried from another clock's beat (Link's, captured for one period): the grid
/// counts from that clock's beat 0, not from the frame it was captured at.
@Suite("A timeline can start on another clock's beat")
struct TimelineFromAnotherBeatTests {
    @Test func theGridFollowsTheBeatItWasGivenAtTheFrame() {
        // Beat 6.25 at frame 10,000, 120 BPM, 48 kHz: bar line 8 is 1.75 beats (42,000 frames) on.
        let timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: 48_000, beat: 6.25, atFrame: 10_000)
        #expect(timeline.beat(at: 10_000) == 6.25)
        #expect(timeline.nextGridFrame(atOrAfter: 10_000, gridBeats: 4) == 52_000)
        #expect(timeline.nextGridFrame(atOrAfter: 10_000, gridBeats: 1) == 28_000)
        #expect(timeline.beatInBar(at: 52_000) == 0)
    }

    @Test func aNegativeBeatCountsUpToTheBarLineAtZero() {
        // Link's beat may start below 0 while it aligns to a session's phase.
        let timeline = Timeline(tempo: 90, beatsPerBar: 4, sampleRate: 48_000, beat: -0.5, atFrame: 1_000)
        // At 90 BPM a beat is 32,000 frames: beat 0 is 16,000 frames on.
        #expect(timeline.nextGridFrame(atOrAfter: 1_000, gridBeats: 4) == 17_000)
        #expect(timeline.nextGridFrame(atOrAfter: 17_001, gridBeats: 4) == 17_000 + 4 * 32_000)
    }

    @Test func aBeatThatIsNotFiniteIsTakenAsZero() {
        let timeline = Timeline(tempo: 120, beatsPerBar: 4, sampleRate: 48_000, beat: .nan, atFrame: 500)
        #expect(timeline.beat(at: 500) == 0)
        #expect(timeline.nextGridFrame(atOrAfter: 501, gridBeats: 4) == 96_500)
    }
}
