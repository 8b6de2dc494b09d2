import Testing
@testable import ParamCore

/// `/mod`, `/mod/depth`, `/mod/stop`, `/mod/get` and the config table, parsed on the control
/// side: every option, and each refusal with its reason.
@Suite struct ModulatorRequestTests {
    static func parse(_ args: [OSCArgument]) throws(ControlError) -> ModulatorRequest { try ModulatorRequest.parse(args) }

    /// The `/error` reason `body` throws, nil if it throws none.
    static func reason(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch { return (error as? ControlError)?.reason ?? "\(error)" }
    }

    @Test func aSineInHzWithEveryOption() throws {
        let r = try Self.parse([.string("sine"), .float32(2), .string("depth"), .float32(0.25), .string("phase"), .float32(0.5),
                                .string("polarity"), .string("up"), .string("fade"), .float32(1.5), .string("seed"), .int32(-7)])
        #expect(r.shape == .sine && r.rate == .hertz(2) && r.depth == 0.25 && r.phase == 0.5 && r.polarity == .up)
        #expect(r.fade == .seconds(1.5) && r.seed == UInt64(bitPattern: -7))
        let spec = r.spec(beatsPerBar: 4)
        #expect(spec.rate == .hertz(2) && spec.depth == 0.25 && spec.phaseOffset == 0.5 && spec.fade == .seconds(1.5))
    }

    @Test func defaultsAreSpecs() throws {
        let r = try Self.parse([.string("random"), .double(0.5)])
        #expect(r.depth == 0.1 && r.phase == 0 && r.polarity == .bi && r.fade == .seconds(0) && r.seed == nil)
    }

    @Test func musicalRatesAndFadesBecomeBeats() throws {
        let bar = try Self.parse([.string("triangle"), .string("1m"), .string("fade"), .string("2m")])
        #expect(bar.spec(beatsPerBar: 4).rate == .beats(4) && bar.spec(beatsPerBar: 3).rate == .beats(3))
        #expect(bar.spec(beatsPerBar: 4).fade == .beats(8))
        let quarter = try Self.parse([.string("sine"), .string("4n")])
        #expect(quarter.spec(beatsPerBar: 4).rate == .beats(1))
        #expect(try Self.parse([.string("sh"), .string("8t")]).spec(beatsPerBar: 4).rate == .beats(1.0 / 3))
        #expect(try Self.parse([.string("saw"), .string("4n.")]).spec(beatsPerBar: 4).rate == .beats(1.5))
        #expect(ModulatorTime.beats(8).seconds(atTempo: 120) == 4)
    }

    @Test func badInputIsRefusedWithItsReason() {
        let cases: [([OSCArgument], String)] = [
            ([.string("wobble"), .float32(1)], "unknown shape 'wobble' (sine, triangle, saw, square, random, sh)"),
            ([.string("sine"), .float32(-1)], "the rate must be > 0: Hz, or musical time (1m, 4n, 8t, 4n., 1.5b)"),
            ([.string("sine"), .float32(0)], "the rate must be > 0: Hz, or musical time (1m, 4n, 8t, 4n., 1.5b)"),
            ([.string("sine"), .float32(.infinity)], "the rate must be > 0: Hz, or musical time (1m, 4n, 8t, 4n., 1.5b)"),
            ([.string("sine"), .float32(5000)], "the rate 5000.0 Hz is over 1000 Hz"),
            ([.string("sine"), .string("4x")], MusicalDurationParseError.unknownUnit("4x").description),
            ([.string("sine"), .string("0m")], MusicalDurationParseError.notPositive("0m").description),
            ([.string("sine"), .string("1024n")], "the rate '1024n' is faster than one cycle a 256th note"),
            ([.string("sine"), .float32(1), .string("depth"), .float32(1.5)], "'depth' must be in 0…1"),
            ([.string("sine"), .float32(1), .string("depth"), .float32(-0.1)], "'depth' must be in 0…1"),
            ([.string("sine"), .float32(1), .string("phase"), .float32(2)], "'phase' must be in 0…1"),
            ([.string("sine"), .float32(1), .string("polarity"), .string("sideways")], "'polarity' is bi, up or down"),
            ([.string("sine"), .float32(1), .string("seed"), .float32(1.5)], "'seed' needs an integer"),
            ([.string("sine"), .float32(1), .string("fade"), .float32(-1)], "'fade' must be a finite number of seconds ≥ 0 or musical time"),
            ([.string("sine"), .float32(1), .string("speed"), .float32(1)], "unknown option 'speed' (options: depth, fade, phase, polarity, seed)"),
            ([.string("sine"), .float32(1), .string("depth")], "option 'depth' needs a value"),
            ([.string("sine")], "expects a shape (sine, triangle, saw, square, random, sh) and a rate (Hz or musical time)"),
        ]
        for (args, expected) in cases {
            #expect(Self.reason { _ = try Self.parse(args) } == expected, "\(args)")
        }
    }

    @Test func theGetReplyHasTheShapeRateDepthPhaseAndPolarity() throws {
        let hz = try Self.parse([.string("sine"), .float32(2), .string("phase"), .float32(0.25)])
        #expect(hz.reply(parameter: "cutoff", currentDepth: 0.05)
                == OSCMessage("/cutoff/mod", [.string("sine"), .float32(2), .float32(0.05), .float32(0.25), .string("bi")]))
        let musical = try Self.parse([.string("sh"), .string("8t"), .string("polarity"), .string("down")])
        #expect(musical.reply(parameter: "cutoff", currentDepth: 0.1)
                == OSCMessage("/cutoff/mod", [.string("sh"), .string("8t"), .float32(0.1), .float32(0), .string("down")]))
    }

    @Test func theDepthAnimatesWithADurationCurveAndOptions() throws {
        let action = DefaultAction(seconds: 0.25, curve: .default)
        var r = try ModulatorDepthRequest.parse([.float32(0)], defaultAction: action)
        #expect(r.animation.target == 0 && r.duration == .seconds(0.25) && r.animation.curve == .default)
        r = try ModulatorDepthRequest.parse([.float32(0.5), .float32(2), .string("linear"), .string("repeat"), .string("inf"),
                                             .string("autoreverse"), .int32(1), .string("id"), .int32(9),
                                             .string("delay"), .string("1m")], defaultAction: action)
        #expect(r.animation.target == 0.5 && r.duration == .seconds(2) && r.animation.curve == .linear)
        #expect(r.animation.repeatCount == .infinity && r.animation.autoreverses && r.animation.tag == 9)
        #expect(r.delay == .musical(MusicalDuration(count: 1, unit: .bars)))
        r = try ModulatorDepthRequest.parse([.float32(0.2), .string("2m"), .string("easeIn")], defaultAction: action)
        #expect(r.animation(beatsPerBar: 4, tempo: 120).seconds == 4 && r.animation.curve == .easeIn)
        r = try ModulatorDepthRequest.parse([.float32(0.2), .string("from"), .double(0.1), .string("mode"), .string("current")],
                                            defaultAction: action)
        #expect(r.animation.from == 0.1 && r.duration == .seconds(0.25))
        let refusals: [([OSCArgument], String)] = [
            ([], "expects a depth in 0…1"),
            ([.float32(1.2)], "'depth' must be in 0…1"),
            ([.float32(0.5), .float32(1), .string("wiggle")], "unknown curve 'wiggle'"),
            ([.float32(0.5), .string("from"), .float32(3)], "'from' must be in 0…1"),
            ([.float32(0.5), .string("mode"), .string("additive")],
             "'mode' of a depth is current: a modulator's depth runs one animation at a time"),
            ([.float32(0.5), .string("-1b")], "the duration: " + MusicalDurationParseError.notPositive("-1b").description),
        ]
        for (args, expected) in refusals {
            #expect(Self.reason { _ = try ModulatorDepthRequest.parse(args, defaultAction: action) } == expected, "\(args)")
        }
    }

    @Test func stopTakesAnOptionalFade() throws {
        #expect(try ModulatorStopRequest.parse([]) == .seconds(0))
        #expect(try ModulatorStopRequest.parse([.float32(2)]) == .seconds(2))
        #expect(try ModulatorStopRequest.parse([.string("1m")]) == .musical(MusicalDuration(count: 1, unit: .bars)))
        #expect(Self.reason { _ = try ModulatorStopRequest.parse([.float32(-1)]) }
                == "the fade must be a finite number of seconds ≥ 0 or musical time")
        #expect(Self.reason { _ = try ModulatorStopRequest.parse([.float32(1), .float32(2)]) }
                == "expects at most a fade (seconds or musical time)")
    }

    /// What the state file keeps reads back to the same request, musical time as written.
    @Test func aRequestRoundTripsThroughItsTable() throws {
        let requests = [
            try Self.parse([.string("sine"), .float32(2)]),
            try Self.parse([.string("sh"), .string("8t"), .string("seed"), .int64(-3), .string("fade"), .string("4n."),
                            .string("polarity"), .string("down"), .string("phase"), .double(0.125), .string("depth"), .double(0.7)]),
            try Self.parse([.string("random"), .string("1.5b"), .string("seed"), .int64(Int64.max), .string("fade"), .double(3)]),
        ]
        for request in requests {
            #expect(try ModulatorRequest.parse(table: request.table) == request)
        }
    }

    @Test func aConfigTableIsReadWithTheSameChecks() throws {
        let r = try ModulatorRequest.parse(table: ["shape": .text("sine"), "rate": .text("1m"), "depth": .number(0.2)])
        #expect(r.shape == .sine && r.rate == .musical(MusicalDuration(count: 1, unit: .bars)) && r.depth == 0.2)
        let s = try ModulatorRequest.parse(table: ["shape": .text("sh"), "rate": .integer(3), "seed": .integer(42),
                                                   "polarity": .text("up"), "fade": .number(0.5)])
        #expect(s.rate == .hertz(3) && s.seed == 42 && s.polarity == .up && s.fade == .seconds(0.5))
        let refusals: [([String: ModulatorTableValue], String)] = [
            (["rate": .number(1)], "mod: 'shape' is missing (sine, triangle, saw, square, random, sh)"),
            (["shape": .text("sine")], "mod: 'rate' is missing (Hz, or musical time such as \"1m\")"),
            (["shape": .number(1), "rate": .number(1)], "mod: 'shape' must be a string (sine, triangle, saw, square, random, sh)"),
            (["shape": .text("sine"), "rate": .number(1), "depth": .number(2)], "mod: 'depth' must be in 0…1"),
            (["shape": .text("sine"), "rate": .number(1), "wobble": .number(2)],
             "mod: unknown option 'wobble' (options: depth, fade, phase, polarity, seed)"),
            (["shape": .text("sine"), "rate": .text("4x")], "mod: " + MusicalDurationParseError.unknownUnit("4x").description),
        ]
        for (table, expected) in refusals {
            #expect(Self.reason { _ = try ModulatorRequest.parse(table: table) } == expected, "\(table)")
        }
    }
}
