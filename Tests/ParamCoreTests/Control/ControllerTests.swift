import Testing
@testable import ParamCore

@Suite struct ControllerTests {
    func onlySpec(_ r: ControlResult) -> (ParameterID, AnimationSpec)? {
        guard r.commands.count == 1, case .animate(let p, let s) = r.commands[0].command else { return nil }
        return (p, s)
    }

    @Test func numbersMayComeAsIntFloatDoubleOrInt64() {
        for arg: OSCArgument in [.int32(0), .float32(0), .double(0), .int64(0)] {
            var c = Controller()
            let r = send(&c, "/volume", [arg])
            #expect(r.error == nil)
            #expect(onlySpec(r)?.1.target == 0)
        }
    }

    @Test func aMessageWithoutDurationOrCurveUsesTheDefaultAction() {
        var c = Controller()
        let (p, s) = onlySpec(send(&c, "/volume", [.float32(0)]))!
        #expect(p == .volume)
        #expect(s.seconds == 0.25)
        #expect(s.curve == DefaultAction.standard.curve)
        #expect(s.domain == .linear)
        #expect(c.target(.volume) == 0)
    }

    @Test func durationAndCurveAreTaken() {
        var c = Controller()
        let (_, s) = onlySpec(send(&c, "/pan", [.float32(1), .float32(1.2), .string("linear")]))!
        #expect(s.seconds == Double(Float(1.2)))
        #expect(s.curve == .linear)
    }

    @Test func frequencyAnimatesInTheLogDomainByDefault() {
        var c = Controller()
        #expect(onlySpec(send(&c, "/frequency", [.float32(880)]))?.1.domain == .log)
    }

    @Test func aTargetOutsideTheRangeIsClampedWithAWarning() {
        var c = Controller()
        let r = send(&c, "/volume", [.float32(3)])
        #expect(onlySpec(r)?.1.target == 1)
        #expect(r.replies.first?.address == "/warning")
        #expect(r.error == nil)
    }

    @Test(arguments: [
        [OSCArgument](),
        [.string("loud")],
        [.float32(.nan)],
        [.float32(.infinity)],
        [.float32(0.5), .float32(-1)],
        [.float32(0.5), .double(90_000)],
        [.float32(0.5), .float32(.nan)],
        [.float32(0.5), .float32(1), .string("wobbly")],
        [.float32(0.5), .float32(1), .string("linear"), .string("bogus"), .float32(1)],
        [.float32(0.5), .float32(1), .string("linear"), .string("from")],
        [.float32(0.5), .float32(1), .string("linear"), .string("domain"), .string("cubic")],
        [.float32(0.5), .float32(1), .string("linear"), .string("id"), .float32(1.5)],
        [.float32(0.5), .float32(1), .string("linear"), .float32(3)],
    ])
    func badInputIsRefusedWithAnErrorAndChangesNothing(args: [OSCArgument]) {
        var c = Controller()
        let r = send(&c, "/volume", args)
        #expect(r.commands.isEmpty)
        #expect(r.error != nil)
        #expect(r.replies.last?.address == "/error")
        #expect(r.replies.last?.arguments.first == .string("/volume"))
        #expect(c.target(.volume) == 1)
    }

    @Test func optionsFromVelocityDomainAndIdAreTaken() {
        var c = Controller()
        let r = send(&c, "/volume", [.float32(0.5), .float32(1), .string("linear"),
                                     .string("from"), .float32(0.1), .string("velocity"), .float32(2),
                                     .string("domain"), .string("db"), .string("id"), .int32(42)])
        let (_, s) = onlySpec(r)!
        #expect(abs(s.from - 0.1) < 1e-7)
        #expect(s.velocity == 2)
        #expect(s.domain == .db)
        #expect(s.tag == 42)
    }

    @Test func anOptionMayFollowTheDurationDirectly() {
        var c = Controller()
        let (_, s) = onlySpec(send(&c, "/volume", [.float32(0.5), .float32(1), .string("id"), .int32(3)]))!
        #expect(s.tag == 3)
        #expect(s.curve == DefaultAction.standard.curve)
    }

    @Test func noteSetsFrequencyFromTheTuningInTheLogDomain() {
        var c = Controller()
        let (p, s) = onlySpec(send(&c, "/note", [.float32(81)]))!
        #expect(p == .frequency)
        #expect(abs(s.target - 880) < 1e-9)
        #expect(s.domain == .log)
        #expect(send(&c, "/a4", [.float32(432)]).replies.isEmpty)
        let (_, t) = onlySpec(send(&c, "/note", [.float32(69.5)]))!
        #expect(abs(t.target - 432 * Math.pow(2, 0.5 / 12)) < 1e-9)
    }

    @Test func a4OutsideItsRangeIsClampedWithAWarning() {
        var c = Controller()
        let r = send(&c, "/a4", [.float32(500)])
        #expect(c.a4 == 480)
        #expect(r.replies.first?.address == "/warning")
    }

    @Test func volumeInDecibelsMapsToGainInTheDbDomain() {
        var c = Controller()
        let (_, s) = onlySpec(send(&c, "/volume/db", [.float32(-6)]))!
        #expect(abs(s.target - Math.pow(10, -6.0 / 20)) < 1e-12)
        #expect(s.domain == .db)
        #expect(onlySpec(send(&c, "/volume/db", [.float32(-.infinity)]))?.1.target == 0)
        #expect(onlySpec(send(&c, "/volume/db", [.float32(-130)]))?.1.target == 0)
        #expect(send(&c, "/volume/db", [.float32(3)]).error != nil)
        #expect(send(&c, "/volume/db", [.float32(.nan)]).error != nil)
    }

    @Test func getRepliesWithValueAndTarget() {
        var c = Controller()
        _ = send(&c, "/tone", [.float32(0.5)])
        let r = send(&c, "/tone/get", [])
        #expect(r.replies == [OSCMessage("/tone", [.float32(0)]), OSCMessage("/tone/target", [.float32(0.5)])])
    }

    @Test func everyRouteAddressIsUnique() {
        let addresses = RouteTable.builtIn.routes.map(\.address)
        #expect(Set(addresses).count == addresses.count)
    }

    @Test func delayRepeatAutoreverseAndModeAreTaken() {
        var c = Controller()
        let r = send(&c, "/volume", [.float32(0.3), .float32(0.5), .string("easeInEaseOut"),
                                     .string("repeat"), .string("inf"), .string("autoreverse"), .int32(1),
                                     .string("delay"), .double(0.25), .string("mode"), .string("additive")])
        #expect(r.error == nil)
        guard r.commands.count == 1, case .animate(_, let s) = r.commands[0].command else { Issue.record("\(r)"); return }
        #expect(s.repeatCount == .infinity && s.autoreverses && s.additive)
        #expect(r.commands[0].delaySeconds == 0.25)
        for (value, expected) in [(OSCArgument.float32(2.5), 2.5), (.double(1e9), Double.infinity)] {
            let q = send(&c, "/tone", [.float32(1), .float32(1), .string("repeat"), value])
            if case .animate(_, let t) = q.commands.first?.command { #expect(t.repeatCount == expected) } else { Issue.record("\(q)") }
        }
    }

    @Test(arguments: [
        [OSCArgument.string("repeat"), .float32(0)],
        [.string("repeat"), .string("forever")],
        [.string("delay"), .float32(-1)],
        [.string("delay"), .float32(100_000)],
        [.string("mode"), .string("sideways")],
        [.string("autoreverse"), .string("yes")],
    ])
    func badOptionValuesAreRefused(options: [OSCArgument]) {
        var c = Controller()
        let r = send(&c, "/volume", [.float32(0.5), .float32(1)] + options)
        #expect(r.error != nil && r.commands.isEmpty)
    }

    @Test func keyframesAreParsedWithTimesCurvesCalcAndOptions() {
        var c = Controller()
        let r = send(&c, "/pan/keyframes", [.float32(2), .float32(-1), .float32(1), .float32(0),
                                            .string("times"), .float32(0), .float32(0.3), .float32(1),
                                            .string("curves"), .string("easeIn"), .string("easeOutBounce"),
                                            .string("calc"), .string("cubic"), .string("repeat"), .float32(2),
                                            .string("delay"), .float32(0.1), .string("id"), .int32(9)])
        #expect(r.error == nil, "\(r.replies)")
        guard case .keyframes(.pan, let k)? = r.commands.first?.command else { Issue.record("\(r)"); return }
        #expect(k.count == 3 && k.values[0] == -1 && k.values[2] == 0)
        #expect(k.times[1] == Double(Float(0.3)))
        #expect(k.curves[1] == (try? TimingCurve.parse("easeOutBounce")))
        #expect(k.calculation == .cubic && k.repeatCount == 2 && k.tag == 9)
        #expect(r.commands[0].delaySeconds == Double(Float(0.1)))
        #expect(c.target(.pan) == 0, "the model value is the last keyframe")
    }

    @Test(arguments: [
        [OSCArgument](),
        [.float32(1)],
        [.float32(1)] + (0..<33).map { OSCArgument.float32(Float($0) / 33) },
        [.float32(1), .float32(0), .float32(1), .string("times"), .float32(0), .float32(1.5)],
        [.float32(1), .float32(0), .float32(1), .float32(0), .string("times"), .float32(0), .float32(0.8), .float32(0.5)],
        [.float32(1), .float32(0), .float32(1), .string("times"), .float32(0.1), .float32(1)],
        [.float32(1), .float32(0), .float32(1), .string("curves"), .string("spring(1,100,10)")],
        [.float32(1), .float32(0), .float32(1), .string("curves"), .string("wobble")],
        [.float32(1), .float32(0), .float32(1), .string("calc"), .string("spline")],
        [.float32(1), .float32(0), .float32(.nan)],
        [.float32(-1), .float32(0), .float32(1)],
    ])
    func badKeyframesAreRefused(args: [OSCArgument]) {
        var c = Controller()
        let r = send(&c, "/volume/keyframes", args)
        #expect(r.error != nil && r.commands.isEmpty, "\(args)")
        #expect(c.target(.volume) == 1)
    }

    @Test func thirtyTwoKeyframesAreTheMost() {
        var c = Controller()
        let r = send(&c, "/volume/keyframes", [.float32(1)] + (0..<32).map { OSCArgument.float32(Float($0) / 31) })
        #expect(r.error == nil)
    }

    @Test func stopAndStopAllSendAStopPerParameter() {
        var c = Controller()
        #expect(send(&c, "/tone/stop", []).commands.count == 1)
        let all = send(&c, "/stop", []).commands
        #expect(all.count == 6)  // the five of the signal path and morph
        #expect(Set(all.map { $0.command.parameter }) == Set(ParameterID.allCases))
        #expect(send(&c, "/stop", [.int32(1)]).error != nil)
    }

    @Test func theDefaultActionChangesWhatBareMessagesGet() {
        var c = Controller()
        #expect(send(&c, "/pan/default", [.float32(1.5), .string("easeOutBounce")]).error == nil)
        guard case .animate(_, let s)? = send(&c, "/pan", [.float32(1)]).commands.first?.command else { Issue.record("no command"); return }
        #expect(s.seconds == 1.5)
        #expect(s.curve == (try? TimingCurve.parse("easeOutBounce")))
        #expect(send(&c, "/pan/default", [.float32(-1), .string("linear")]).error != nil)
        #expect(send(&c, "/pan/default", [.float32(1), .string("nope")]).error != nil)
        #expect(c.defaultAction(.pan).seconds == 1.5, "a refused default changes nothing")
    }

    @Test func aTargetUpdateIsAdoptedOnlyIfNoNewerCommandSetTheTarget() {
        var c = Controller()
        let first = send(&c, "/volume", [.float32(0.2), .float32(1), .string("autoreverse"), .int32(1)]).commands[0].serial
        c.apply(TargetUpdate(parameter: .volume, value: 1, serial: first))
        #expect(c.target(.volume) == 1)
        let second = send(&c, "/volume", [.float32(0.5)]).commands[0].serial
        c.apply(TargetUpdate(parameter: .volume, value: 0.9, serial: first))
        #expect(c.target(.volume) == 0.5, "a stale update is ignored")
        #expect(second != first)
    }

    @Test func aBundleTimeIsCarriedOnEveryCommand() {
        var c = Controller()
        let r = c.handle(OSCMessage("/tone", [.float32(1)]), route: RouteTable.builtIn.route(for: "/tone")!, start: .at(12345), sounding: { $0.initialValue })
        #expect(r.commands.first?.start == .at(12345))
    }
}
