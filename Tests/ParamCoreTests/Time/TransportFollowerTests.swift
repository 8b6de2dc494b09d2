import Testing
@testable import ParamCore

/// The JACK transport's BBT as paramd reads it (SPEC §14 `transport = "jack"`): the beat at the
/// cycle's first frame, the checks that make a reading invalid, and whole ticks held to one line.
@Suite struct TransportFollowerTests {
    static let rate = 48_000.0

    /// The BBT a master at `bpm` in `perBar`/4 gives for transport frame `frame`, in whole ticks
    /// of `ticksPerBeat` (the tick after the true beat's, as JACK masters count).
    static func bbt(frame: UInt32, bpm: Double = 100, perBar: Int = 3, ticksPerBeat: Double = 1920) -> TransportBBT {
        let beats = Double(frame) * bpm / (60 * rate)
        let whole = Int(beats)
        let tick = Int32(((beats - Double(whole)) * ticksPerBeat).rounded(.down))
        return TransportBBT(bar: Int32(whole / perBar + 1), beat: Int32(whole % perBar + 1), tick: tick,
                            beatsPerBar: Float(perBar), beatType: 4, ticksPerBeat: ticksPerBeat, beatsPerMinute: bpm)
    }

    @Test func barBeatAndTickCountBeatsFromOneOneZero() throws {
        // Bar 3, beat 2, tick 960 of 1920 in 3/4: 2·3 + 1 + 0.5 beats.
        let bbt = TransportBBT(bar: 3, beat: 2, tick: 960, beatsPerBar: 3, beatType: 4, ticksPerBeat: 1920, beatsPerMinute: 100)
        let reading = try #require(bbt.reading(sampleRate: Self.rate))
        #expect(reading == TimelineReading(tempo: 100, beat: 7.5, beatsPerBar: 3))
    }

    @Test func tickDoubleAndTheFrameOffsetAreTakenWhenGiven() throws {
        var bbt = TransportBBT(bar: 1, beat: 1, tick: 0, tickDouble: 480.25, beatsPerBar: 4, beatType: 4,
                               ticksPerBeat: 1920, beatsPerMinute: 120)
        #expect(try #require(bbt.reading(sampleRate: Self.rate)).beat == 480.25 / 1920)
        #expect(bbt.resolutionBeats == 0)
        // The BBT holds 240 frames before the cycle: at 120 BPM, 0.01 beat later at its start.
        bbt.offsetFrames = 240
        #expect(abs(try #require(bbt.reading(sampleRate: Self.rate)).beat - (480.25 / 1920 + 0.01)) < 1e-12)
    }

    /// A valid BBT with one field spoiled as `what` says.
    static func spoiled(_ what: String) -> TransportBBT {
        var b = TransportBBT(bar: 2, beat: 4, tick: 100, beatsPerBar: 4, beatType: 4, ticksPerBeat: 1920, beatsPerMinute: 120)
        switch what {
        case "NaN tempo": b.beatsPerMinute = .nan
        case "no ticks per beat": b.ticksPerBeat = 0
        case "infinite ticks per beat": b.ticksPerBeat = .infinity
        case "tempo under 20": b.beatsPerMinute = 10
        case "tempo over 999": b.beatsPerMinute = 1200
        case "bar 0": b.bar = 0
        case "beat 0": b.beat = 0
        case "beat past the bar": b.beat = 5
        case "negative tick": b.tick = -1
        case "tick past the beat": b.tick = 1920
        case "NaN beats per bar": b.beatsPerBar = .nan
        case "no beats per bar": b.beatsPerBar = 0
        case "100 beats per bar": b.beatsPerBar = 100
        case "no beat type": b.beatType = 0
        case "infinite tick_double": b.tickDouble = .infinity
        default: break
        }
        return b
    }

    @Test(arguments: ["NaN tempo", "no ticks per beat", "infinite ticks per beat", "tempo under 20", "tempo over 999", "bar 0",
                      "beat 0", "beat past the bar", "negative tick", "tick past the beat", "NaN beats per bar",
                      "no beats per bar", "100 beats per bar", "no beat type", "infinite tick_double"])
    func aFieldNoMasterCanMeanMakesTheBBTInvalid(_ what: String) {
        #expect(Self.spoiled("none").reading(sampleRate: Self.rate) != nil)
        let bbt = Self.spoiled(what)
        #expect(bbt.reading(sampleRate: Self.rate) == nil, "\(what)")
        var follower = TransportFollower()
        #expect(follower.follow(rolling: true, bbt: bbt, transportFrame: 0, sampleRate: Self.rate) == nil)
        #expect(follower.state == .invalidBBT)
    }

    @Test func aStoppedTransportOrNoBBTIsNotFollowed() {
        var follower = TransportFollower()
        #expect(follower.follow(rolling: false, bbt: Self.bbt(frame: 0), transportFrame: 0, sampleRate: Self.rate) == nil)
        #expect(follower.state == .stopped)
        #expect(follower.follow(rolling: true, bbt: nil, transportFrame: 0, sampleRate: Self.rate) == nil)
        #expect(follower.state == .noBBT)
        #expect(follower.follow(rolling: true, bbt: Self.bbt(frame: 0), transportFrame: 0, sampleRate: Self.rate) != nil)
        #expect(follower.state == .following)
    }

    @Test(arguments: [256, 1024, 128])
    func wholeTicksAreHeldToOneLineWithinAFrame(period: Int) throws {
        // 100 BPM, 1920 ticks a beat: a tick is 15 frames. From transport frame 1,000,003 on.
        var follower = TransportFollower()
        let beatsPerFrame = 100 / (60 * Self.rate)
        var worstFrames = 0.0, lastHalf = 0.0
        for n in 0..<400 {
            let frame = UInt32(1_000_003 + n * period)
            let followed = follower.follow(rolling: true, bbt: Self.bbt(frame: frame), transportFrame: frame, sampleRate: Self.rate)
            let reading = try #require(followed)
            let errorFrames = abs(reading.beat - Double(frame) * beatsPerFrame) / beatsPerFrame
            worstFrames = max(worstFrames, errorFrames)
            if n >= 200 { lastHalf = max(lastHalf, errorFrames) }
            #expect(reading.tempo == 100 && reading.beatsPerBar == 3)
        }
        #expect(worstFrames <= 7.5 + 1e-6, "never off by more than half a tick")
        #expect(lastHalf < 1, "within a frame once the ticks have been seen at several phases: \(lastHalf)")
    }

    @Test func aLocateOrANewTempoStartsAgain() throws {
        var follower = TransportFollower()
        for n in 0..<50 {
            let frame = UInt32(n * 256)
            _ = follower.follow(rolling: true, bbt: Self.bbt(frame: frame), transportFrame: frame, sampleRate: Self.rate)
        }
        // Located to bar 11 (frame 864,000 at 100 BPM in 3/4 is beat 30): the reading is there at once.
        let atLocate = follower.follow(rolling: true, bbt: Self.bbt(frame: 864_000), transportFrame: 864_000, sampleRate: Self.rate)
        let located = try #require(atLocate)
        #expect(abs(located.beat - 30) < 1.0 / 1920)
        // A master that jumps its BBT without moving the frame: followed, not held to the old line.
        var jumped = Self.bbt(frame: 864_256)
        jumped.bar += 2
        let afterJump = follower.follow(rolling: true, bbt: jumped, transportFrame: 864_256, sampleRate: Self.rate)
        let moved = try #require(afterJump)
        #expect(abs(moved.beat - (36 + 256 * 100 / (60 * Self.rate))) < 1.0 / 1920)
        let atNewTempo = follower.follow(rolling: true, bbt: Self.bbt(frame: 864_512, bpm: 140), transportFrame: 864_512,
                                         sampleRate: Self.rate)
        let faster = try #require(atNewTempo)
        #expect(faster.tempo == 140)
        #expect(abs(faster.beat - 864_512 * 140 / (60 * Self.rate)) < 1.0 / 1920)
    }

    /// JACK2, when the master's callback ran late (xruns), gives the BBT the master wrote for the
    /// cycle before with this cycle's frame (measured: 17 ticks, a 256-frame period, behind).
    @Test func aStaleReadingHoldsTheLineAndTwoInARowAreALocate() throws {
        var follower = TransportFollower()
        let beatsPerFrame = 100 / (60 * Self.rate)
        var lastHalf = 0.0
        for n in 0..<400 {
            let frame = UInt32(1_000_003 + n * 256)
            // Every seventh period stale.
            let stale = n % 7 == 6
            let bbt = Self.bbt(frame: stale ? frame - 256 : frame)
            let followed = follower.follow(rolling: true, bbt: bbt, transportFrame: frame, sampleRate: Self.rate)
            let reading = try #require(followed)
            let errorFrames = abs(reading.beat - Double(frame) * beatsPerFrame) / beatsPerFrame
            if n >= 200 { lastHalf = max(lastHalf, errorFrames) }
        }
        #expect(lastHalf < 1, "within a frame, stale readings and all: \(lastHalf)")
        // Located back by 100 frames: the first reading is held as stale, the second followed.
        let last = UInt32(1_000_003 + 400 * 256)
        let held = follower.follow(rolling: true, bbt: Self.bbt(frame: last - 100), transportFrame: last, sampleRate: Self.rate)
        let first = try #require(held)
        #expect(abs(first.beat - Double(last) * beatsPerFrame) < beatsPerFrame, "held on the line")
        let followed = follower.follow(rolling: true, bbt: Self.bbt(frame: last + 156), transportFrame: last + 256, sampleRate: Self.rate)
        let second = try #require(followed)
        #expect(abs(second.beat - Double(last + 156) * beatsPerFrame) <= 7.5 * beatsPerFrame + 1e-12, "the locate, within half a tick")
    }

    @Test func aBarOfSixEighthsCountsEighths() throws {
        let bbt = TransportBBT(bar: 2, beat: 1, tick: 0, beatsPerBar: 6, beatType: 8, ticksPerBeat: 1920, beatsPerMinute: 180)
        #expect(try #require(bbt.reading(sampleRate: Self.rate)) == TimelineReading(tempo: 180, beat: 6, beatsPerBar: 6))
    }
}
