import Testing
@testable import ParamCore

/// Musical time on the control side (SPEC §14): durations, `delay`, `stagger` and `quantize`
/// parse into beats; bad musical time and tempi are refused with nothing changed.
@Suite struct ControllerMusicalTimeTests {
    func only(_ r: ControlResult) -> (AnimationSpec, TimedCommand)? {
        guard r.commands.count == 1, case .animate(_, let s) = r.commands[0].command else { return nil }
        return (s, r.commands[0])
    }

    @Test func aDurationInMusicalTimeBecomesBeats() throws {
        var c = Controller()
        for (text, beats) in [("1m", 4.0), ("2m", 8), ("4n", 1), ("8t", 1.0 / 3), ("4n.", 1.5), ("1.5b", 1.5)] {
            let (s, timed) = try #require(only(send(&c, "/volume", [.float32(0.2), .string(text)])))
            #expect(abs((s.beats ?? .nan) - beats) < 1e-15, "\(text)")
            #expect(abs(s.seconds - beats / 2) < 1e-15, "\(text): its seconds at 120 BPM")
            #expect(timed.placement == .none)
        }
        let (s, _) = try #require(only(send(&c, "/volume", [.float32(0.2), .string("1m"), .string("easeIn")])))
        #expect(s.curve == (try TimingCurve.parse("easeIn")))
        c.beatsPerBar = 3
        #expect(only(send(&c, "/volume", [.float32(0.2), .string("1m")]))?.0.beats == 3)
    }

    @Test func secondsStaySeconds() {
        var c = Controller()
        let s = only(send(&c, "/volume", [.float32(0.2), .float32(1)]))?.0
        #expect(s != nil && s?.beats == nil)
        #expect(s?.seconds == 1)
    }

    @Test func badMusicalTimeIsRefusedAndChangesNothing() {
        var c = Controller()
        for args: [OSCArgument] in [
            [.float32(0.2), .string("0m")], [.float32(0.2), .string("4x")], [.float32(0.2), .string("-1b")],
            [.float32(0.2), .float32(1), .string("linear"), .string("delay"), .string("0m")],
            [.float32(0.2), .string("quantize"), .float32(1)],
            [.float32(0.2), .string("quantize"), .string("4x")],
            [.float32(0.2), .string("quantize"), .string("linear")],
            [.float32(0.2), .string("quantize")],
            [.float32(0.2), .string("1000000m")],
        ] {
            let r = send(&c, "/volume", args)
            #expect(r.error != nil, "\(args)")
            #expect(r.commands.isEmpty)
            #expect(r.replies.last?.address == "/error")
            #expect(c.target(.volume) == ParameterID.volume.initialValue)
        }
        #expect(send(&c, "/volume", [.float32(0.2), .string("4x")]).error?.contains("'4x'") == true)
    }

    @Test func delayAndQuantizeInMusicalTimeArePlacements() throws {
        var c = Controller()
        let (_, timed) = try #require(only(send(&c, "/volume", [
            .float32(0.2), .string("2m"), .string("linear"), .string("delay"), .string("1b"), .string("quantize"), .string("1m"),
        ])))
        #expect(timed.placement == BeatPlacement(delayBeats: 1, gridBeats: 4))
        #expect(timed.delaySeconds == 0)
        let (_, seconds) = try #require(only(send(&c, "/volume", [.float32(0.2), .string("delay"), .float32(0.5),
                                                                  .string("quantize"), .string("4n")])))
        #expect(seconds.delaySeconds == 0.5)
        #expect(seconds.placement == BeatPlacement(delayBeats: 0, gridBeats: 1))
    }

    @Test func keyframesTakeMusicalTime() throws {
        var c = Controller()
        let r = send(&c, "/volume/keyframes", [.string("1m"), .float32(0), .float32(1), .string("quantize"), .string("4n")])
        guard r.commands.count == 1, case .keyframes(_, let k) = r.commands[0].command else {
            Issue.record("no keyframes: \(r.error ?? "")")
            return
        }
        #expect(k.beats == 4)
        #expect(k.seconds == 2)
        #expect(r.commands[0].placement.gridBeats == 1)
        #expect(send(&c, "/volume/keyframes", [.string("0m"), .float32(0), .float32(1)]).error != nil)
    }

    @Test func tempoIsTwentyToNineHundredNinetyNineAndMayGlideLinearly() {
        var c = Controller()
        for bpm in [0.0, 19.99, 1000, .nan, .infinity] {
            let r = send(&c, "/tempo", [.double(bpm)])
            #expect(r.error != nil && r.tempoChange == nil, "\(bpm)")
            #expect(c.tempo == 120)
        }
        #expect(send(&c, "/tempo", [.float32(93)]).tempoChange == TempoChange(bpm: 93, glideSeconds: 0))
        #expect(c.tempo == 93)
        #expect(send(&c, "/tempo", [.float32(60), .float32(2), .string("linear")]).tempoChange
            == TempoChange(bpm: 60, glideSeconds: 2))
        // A glide in musical time lasts its beats at the tempo it starts from (60 BPM: 1m is 4 s).
        #expect(send(&c, "/tempo", [.float32(120), .string("1m")]).tempoChange == TempoChange(bpm: 120, glideSeconds: 4))
        let curved = send(&c, "/tempo", [.float32(90), .float32(1), .string("easeIn")])
        #expect(curved.error != nil && curved.tempoChange == nil && c.tempo == 120)
        #expect(send(&c, "/tempo", [.float32(90), .string("4x")]).error != nil)
        #expect(send(&c, "/tempo", []).error != nil)
        // At a slower tempo, musical time is longer: 24 hours is reached sooner.
        _ = send(&c, "/tempo", [.float32(20)])
        #expect(send(&c, "/volume", [.float32(0.2), .string("7201m")]).error != nil)
        #expect(send(&c, "/volume", [.float32(0.2), .string("7200m")]).error == nil)
    }

    @Test func aRecallTakesMusicalDurationDelayStaggerAndQuantize() throws {
        var c = Controller()
        _ = send(&c, "/scene/save", [.string("look")])
        let r = send(&c, "/scene/recall", [.string("look"), .string("2m"), .string("linear"), .string("stagger"), .string("1b"),
                                           .string("quantize"), .string("1m")])
        #expect(r.error == nil, "\(r.error ?? "")")
        #expect(r.commands.count > 1)
        for (k, timed) in r.commands.enumerated() {
            guard case .animate(_, let s) = timed.command else { Issue.record("not an animation"); continue }
            #expect(s.beats == 8)
            #expect(timed.placement == BeatPlacement(delayBeats: Double(k), gridBeats: 4))
        }
        #expect(send(&c, "/scene/recall", [.string("look"), .string("stagger"), .string("0b")]).error != nil)
        // Each stagger is within 24 hours; the last member's is not.
        let far = send(&c, "/scene/recall", [.string("look"), .string("stagger"), .string("20000m")])
        #expect(far.error?.contains("24 hours") == true && far.commands.isEmpty)
    }
}
