@testable import ParamCore
import Testing

/// Cues on timecode frames (SPEC §18), frame by frame through `TimecodeRig`: a cue's first
/// changed sample is the frame its timecode frame begins on, at every rate and ±0.5 % speed;
/// each fires once; a locate joins what would be running and fires again what it passes again;
/// a dropout freewheels.
@Suite struct TimecodeCueTests {
    @Test(arguments: [(TimecodeRate.fps24, 1.0), (.fps25, 1.0), (.fps2997DropFrame, 1.0), (.fps30, 1.0),
                      (.fps25, 1.005), (.fps25, 0.995), (.fps2997DropFrame, 1.005), (.fps30, 0.995)])
    func aCueStartsOnTheFrameItsTimecodeFrameBegins(rate: TimecodeRate, speed: Double) {
        var rig = TimecodeRig(rate: rate)
        defer { rig.release() }
        let label = rate == .fps2997DropFrame ? "00:59:59:29" : "01:00:01:00"
        rig.cue(label, "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "00:59:58:00", speed: speed)
        let expected = rig.frame(of: label)
        rig.render(through: expected + 1000)
        #expect(rig.firstChange() == expected, "\(rate.name) at speed \(speed)")
        #expect(rig.sounded[expected] == 1)
    }

    /// JACK runs cycles without the renderer just before a word (an xrun): the period after them
    /// is rendered before the follower knows they were missed, so the point heard in it waits a
    /// period and is heard where the skip put it. The cue a frame later starts on its frame, once.
    /// Heard at once, the point put the cue the skipped cycles early (a CI run: 257 samples).
    @Test(arguments: [1, 3])
    func cyclesJackRanWithoutTheRendererJustBeforeAWordLeaveTheCueOnItsFrame(skipped: Int) throws {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        rig.cue("01:00:02:00", "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "01:00:00:00")
        let word = UInt64(rig.frame(of: "01:00:01:24"))
        let firstAfter = word / 256 * 256  // the cycle that holds the word
        while rig.jack < firstAfter - UInt64(skipped * 256) { rig.render(periods: 1) }
        rig.skip(cycles: skipped)
        let expected = rig.frame(of: "01:00:02:00")
        rig.render(through: expected + 2000)
        #expect(rig.firstChangeJackFrame() == expected, "\(skipped) cycles skipped before the word")
        let index = try #require(rig.firstChange())
        #expect(rig.sounded[index] == 1 && rig.firstChange(from: index + 1) == nil, "the cue fired once")
        #expect(rig.scene.renderer.counters.load(.skippedFrames) == UInt64(skipped * 256))
    }

    /// One word placed a period early (as after an xrun the follower cannot see) is passed over:
    /// it is more than 32 samples off the line and the next word does not agree with it. The cue
    /// after it starts on its frame; believed, it started 256 samples early.
    @Test func oneWordPlacedAPeriodOffIsPassedOver() {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        rig.cue("01:00:02:00", "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "01:00:00:00")
        let word = UInt64(rig.frame(of: "01:00:01:24"))
        while rig.jack + 256 <= word { rig.render(periods: 1) }
        rig.nudge = -256
        let expected = rig.frame(of: "01:00:02:00")
        rig.render(through: expected + 2000)
        #expect(rig.firstChangeJackFrame() == expected)
        #expect(rig.news.count == 1, "one lock, no locate: \(rig.news)")
    }

    /// Words that keep coming, each placed off the line by a different amount (as when JACK
    /// skips cycles between every two of them), are never believed, but they are timecode still
    /// playing: a second of them does not run freewheel out. Before, it did after half a second.
    @Test func wordsOffTheLineInARowAreNotADropout() {
        var rig = TimecodeRig(rate: .fps25, freewheelSeconds: 0.5)
        defer { rig.release() }
        rig.play(from: "01:00:00:00")
        rig.render(through: rig.frame(of: "01:00:00:10"))
        #expect(rig.scene.renderer.handles.timecode.locked)
        var early = true
        let end = rig.frame(of: "01:00:01:10")
        while rig.jack <= UInt64(end) {
            if rig.nudge == nil {
                rig.nudge = early ? -100 : 100
                early.toggle()
            }
            rig.render(periods: 1)
        }
        #expect(!rig.news.contains { if case .lost = $0 { true } else { false } }, "\(rig.news)")
        #expect(rig.scene.renderer.handles.timecode.locked)
    }

    /// A cue set behind the timecode does not fire (it never comes again this run), a reload
    /// that keeps a cue fired already does not fire it again, and a label the heard rate does not
    /// have (frame 27 at 25 fps) is passed, not left waiting on the audio side.
    @Test func cuesSetBehindTheTimecodeOrReloadedDoNotFireAgain() {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        rig.cue("01:00:01:00", "/cutoff", [.float32(0.5), .float32(0)])
        rig.cue("01:00:01:27", "/cutoff", [.float32(0.9), .float32(0)])
        rig.play(from: "01:00:00:00")
        rig.render(through: rig.frame(of: "01:00:03:00"))
        #expect(rig.sounded.last == 0.5)
        rig.cue("01:00:02:00", "/cutoff", [.float32(0.25), .float32(0)])
        let message = OSCMessage("/cutoff", [.float32(0.75), .float32(0)])
        let first = TimecodeAddress(hours: 1, minutes: 0, seconds: 1, frames: 10)
        rig.controller.cues.replaceConfigCues(with: [(first, message, ahead: true)])
        rig.woken = true
        rig.render(through: rig.frame(of: "01:00:04:00"))
        #expect(rig.firstChange(from: rig.frame(of: "01:00:01:01")) == nil, "nothing after the first cue fired: \(rig.sounded.last ?? -1)")
        // Reloaded with the same cue: kept as it was, not fired again.
        rig.controller.cues.replaceConfigCues(with: [(first, message, ahead: true)])
        rig.woken = true
        rig.render(through: rig.frame(of: "01:00:05:00"))
        #expect(rig.firstChange(from: rig.frame(of: "01:00:01:01")) == nil)
        // The one fired is sent; the three others passed, none armed or waiting.
        #expect(rig.controller.cues.cues.filter { $0.state == .passed }.count == 3, "\(rig.controller.cues.cues.map(\.state))")
        #expect(!rig.controller.cues.cues.contains { $0.state == .armed || $0.state == .fresh })
        #expect(rig.scene.renderer.counters.load(.scheduled) == 0, "nothing left waiting")
    }

    @Test func aRateFoundFromTheSignalPlacesTheCueToo() {
        var rig = TimecodeRig(rate: .fps24)
        defer { rig.release() }
        rig.cue("10:00:00:23", "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "09:59:59:00")
        let expected = rig.frame(of: "10:00:00:23")
        rig.render(through: expected + 500)
        #expect(rig.firstChange() == expected)
        #expect(rig.scene.renderer.handles.timecode.rate == .fps24)
    }

    /// A cycle JACK skipped stretches the samples between two words (the player and paramd both
    /// missed it): the rate found stays, no locate, and a cue after it is on its frame.
    @Test func aStretchBetweenTwoWordsKeepsTheRate() {
        var rig = TimecodeRig(rate: .fps30)
        defer { rig.release() }
        rig.cue("01:00:02:00", "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "01:00:00:00")
        rig.render(through: rig.frame(of: "01:00:01:00"))
        for _ in 0..<3 {
            rig.tape!.base += 512  // the frames from here on begin 512 samples later
            rig.render(through: rig.frame(of: "01:00:01:00") + 3200)
        }
        let expected = rig.frame(of: "01:00:02:00")
        rig.render(through: expected + 500)
        #expect(rig.scene.renderer.handles.timecode.rate == .fps30)
        #expect(rig.news.count == 1, "one lock, no locate: \(rig.news)")
        #expect(rig.firstChange() == expected)
    }

    @Test func twoHundredCuesFiveFramesApartEachFireOnceOnTheirFrame() {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        var labels: [String] = []
        for i in 0..<200 {
            let label = TimecodeAddress(frameNumber: 90_000 + 25 + Int64(5 * i), rate: .fps25).description
            labels.append(label)
            rig.cue(label, "/cutoff", [.float32(Float(i + 1) / 200), .float32(0)])
        }
        rig.play(from: "01:00:00:00")
        rig.render(through: rig.frame(of: labels[199]) + 500)
        var changes: [Int] = []
        for f in 1..<rig.sounded.count where rig.sounded[f] != rig.sounded[f - 1] { changes.append(f) }
        #expect(changes == labels.map { rig.frame(of: $0) })
        for (i, label) in labels.enumerated() { #expect(rig.sounded[rig.frame(of: label)] == Float(i + 1) / 200) }
    }

    @Test func aLocateForwardJoinsAFadeInTheMiddle() {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        #expect(rig.scene.renderer.commands.push(TimedCommand(.animate(rig.cutoff, AnimationSpec(target: 1, seconds: 0, curve: .linear,
                                                                                                 domain: .linear)))))
        rig.cue("01:00:10:00", "/cutoff", [.float32(0), .float32(4), .string("linear")])
        rig.play(from: "01:00:05:00")
        rig.render(through: rig.frame(of: "01:00:07:00"))
        #expect(rig.sounded.last == 1)
        // The tape jumps to 01:00:12:00: its first word ends where 01:00:12:01 begins, the
        // second (which confirms the jump) where 01:00:12:02 begins.
        rig.play(from: "01:00:12:00", afterFrames: 0)
        let twelve = rig.frame(of: "01:00:12:00")
        let decoded = rig.frame(of: "01:00:12:02")
        rig.render(through: decoded + 2000)
        let begun = Double(twelve) - 2 * 48000
        let joined = rig.firstChange(from: decoded)!
        #expect(joined - decoded <= 256 + 256, "joined within a period of the frame decoded after the jump")
        for f in joined..<(decoded + 2000) {
            let expected = 1 - (Double(f) - begun) / (4 * 48000)
            #expect(abs(Double(rig.sounded[f]) - expected) < 1e-6, "frame \(f)")
            if abs(Double(rig.sounded[f]) - expected) >= 1e-6 { break }
        }
        #expect(rig.news.contains { if case .located(let label, _, let joined) = $0 { label.description == "01:00:12:02" && joined == 1 } else { false } })
    }

    @Test func aLocateBackwardsFiresTheCueAgainWhenPassedAgain() {
        var rig = TimecodeRig(rate: .fps25)
        defer { rig.release() }
        rig.cue("01:00:02:00", "/cutoff", [.float32(1), .float32(0)])
        rig.cue("01:00:02:10", "/cutoff", [.float32(0.5), .float32(0)])
        rig.play(from: "01:00:01:00")
        rig.render(through: rig.frame(of: "01:00:03:00"))
        #expect(rig.sounded.last == 0.5)
        rig.play(from: "01:00:01:00", afterFrames: 0)
        let again = rig.frame(of: "01:00:02:00")
        rig.render(through: again + 100)
        #expect(rig.firstChange(from: rig.frame(of: "01:00:01:10")) == again)
        #expect(rig.sounded[again] == 1)
    }

    @Test func aCueInADropoutFiresOnItsFrameThenFreewheelRunsOut() {
        var rig = TimecodeRig(rate: .fps25, freewheelSeconds: 0.5)
        defer { rig.release() }
        rig.cue("01:00:02:05", "/cutoff", [.float32(1), .float32(0)])
        rig.play(from: "01:00:00:00")
        // The LTC stops where 01:00:02:00 would begin; the cue is 0.2 s into the dropout.
        let stops = rig.frame(of: "01:00:02:00")
        let expected = rig.frame(of: "01:00:02:05")
        rig.render(through: stops - 300)
        rig.tape = nil
        rig.render(through: expected + 48000)
        #expect(abs(rig.firstChange()! - expected) <= 1, "predicted from the frames before it")
        #expect(rig.news.contains { if case .lost = $0 { true } else { false } })
        #expect(!rig.scene.renderer.handles.timecode.locked)
    }
}
