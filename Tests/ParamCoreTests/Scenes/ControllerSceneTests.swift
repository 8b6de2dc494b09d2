import Testing
@testable import ParamCore

@Suite struct ControllerSceneTests {
    /// Built-ins plus a declared log `cutoff` (20…20000 Hz).
    static var registry: ParameterRegistry {
        var r = ParameterRegistry.builtIn
        try! r.declare(ParameterSpec(name: "cutoff", minimum: 20, maximum: 20000, initial: 1000, unit: "Hz", domain: .log))
        return r
    }

    func controller() -> Controller {
        var c = Controller(registry: Self.registry)
        c.sampleRate = 48000
        return c
    }

    @discardableResult
    func send(_ c: inout Controller, _ address: String, _ args: [OSCArgument], start: StartTime = .immediately) -> ControlResult {
        let route = RouteTable(registry: c.registry).route(for: address)!
        let sounding = c.targets  // nothing renders here: each parameter sounds its target
        return c.handle(OSCMessage(address, args), route: route, start: start, sounding: { sounding[$0.index] })
    }

    func animations(_ r: ControlResult) -> [(ParameterID, AnimationSpec, Double)] {
        r.commands.compactMap { if case .animate(let p, let s) = $0.command { (p, s, $0.delaySeconds) } else { nil } }
    }

    var cutoff: ParameterID { Self.registry.id(named: "cutoff")! }

    /// volume 0.2, cutoff 400, pan -1 saved as `dark`; then volume 0.9, cutoff 5000, pan 1 as `bright`.
    func twoScenes(_ c: inout Controller) {
        send(&c, "/volume", [.float32(0.2)]); send(&c, "/cutoff", [.float32(400)]); send(&c, "/pan", [.float32(-1)])
        #expect(send(&c, "/scene/save", [.string("dark"), .string("/{volume,cutoff,pan}")]).error == nil)
        send(&c, "/volume", [.float32(0.9)]); send(&c, "/cutoff", [.float32(5000)]); send(&c, "/pan", [.float32(1)])
        #expect(send(&c, "/scene/save", [.string("bright"), .string("/{volume,cutoff,pan}")]).error == nil)
    }

    @Test func savingTakesEveryParameterButMorphSortedByName() {
        var c = controller()
        let r = send(&c, "/scene/save", [.string("all")])
        #expect(r.error == nil && r.commands.isEmpty)
        let names = c.scenes.scene(named: "all")!.members.map(\.parameter)
        #expect(names == ["cutoff", "frequency", "input", "pan", "tone", "volume"])
        #expect(c.scenes.scene(named: "all")!.value(of: "frequency") == 440)
    }

    @Test func aPatternMatchingNothingOrMatchingOnlyMorphIsAnErrorAndSavesNothing() {
        var c = controller()
        for pattern in ["/nothing*", "/morph", "/volume/db"] {
            let r = send(&c, "/scene/save", [.string("x"), .string(pattern)])
            #expect(r.replies.first?.address == "/error")
        }
        #expect(c.scenes.count == 0)
    }

    @Test(arguments: [[OSCArgument](), [.string("Bad Name")], [.int32(3)], [.string("a"), .int32(1)],
                      [.string(String(repeating: "a", count: 33))], [.string("_previous")]])
    func badSavesAreErrors(_ args: [OSCArgument]) {
        var c = controller()
        #expect(send(&c, "/scene/save", args).error != nil)
        #expect(c.scenes.all.isEmpty)
    }

    @Test func aRecallAnimatesEveryMemberFromOneFrameInOneGroupWithTheSceneDefaultAction() {
        var c = controller()
        twoScenes(&c)
        let r = send(&c, "/scene/recall", [.string("dark")], start: .at(12345))
        #expect(r.error == nil)
        let a = animations(r)
        #expect(a.map(\.0) == [cutoff, .pan, .volume])  // sorted by name when saved over OSC
        #expect(a.map(\.1.target) == [400, -1, Double(Float(0.2))])
        #expect(a.allSatisfy { $0.1.seconds == 1 && $0.1.curve == .default && $0.2 == 0 })
        #expect(a[0].1.domain == .log && a[1].1.domain == .linear)
        #expect(r.commands.allSatisfy { $0.start == .at(12345) })
        let group = a[0].1.group
        #expect(group != 0 && a.allSatisfy { $0.1.group == group })
        #expect(r.recalls == [SceneRecall(name: "dark", group: group, members: 3)])
        #expect(c.target(cutoff) == 400 && c.target(.volume) == Double(Float(0.2)))
        // The next recall is another group.
        let again = animations(send(&c, "/scene/recall", [.string("bright")]))
        #expect(again[0].1.group != group)
    }

    @Test func durationCurveAndEveryOptionApplyToEveryMember() {
        var c = controller()
        twoScenes(&c)
        let r = send(&c, "/scene/recall", [.string("dark"), .float32(2), .string("linear"),
                                           .string("repeat"), .float32(2), .string("autoreverse"), .int32(1),
                                           .string("from"), .float32(50), .string("velocity"), .float32(3),
                                           .string("mode"), .string("additive"), .string("id"), .int32(9),
                                           .string("delay"), .float32(0.5), .string("domain"), .string("linear")])
        #expect(r.error == nil)
        let a = animations(r)
        #expect(a.count == 3)
        for (p, s, delay) in a {
            #expect(s.seconds == 2 && s.curve == .linear && s.repeatCount == 2 && s.autoreverses)
            #expect(s.velocity == 3 && s.additive && s.tag == 9 && s.domain == .linear)
            #expect(delay == 0.5)
            #expect(s.from == Self.registry[p].clamp(50))  // clamped per member: 50 Hz, pan 1, volume 1
        }
    }

    @Test func staggerPutsMemberKOnRoundOfKTimesStaggerFramesAfterTheFirst() {
        var c = controller()
        twoScenes(&c)
        let a = animations(send(&c, "/scene/recall", [.string("dark"), .string("stagger"), .float32(0.1)]))
        let stagger = Double(Float(0.1))
        for (k, (_, _, delay)) in a.enumerated() {
            let frames = Int64(delay * 48000 + 0.5)  // the audio side's rounding (Animation.frames)
            #expect(frames == Int64((Double(k) * stagger * 48000).rounded()))
            #expect(frames == 4800 * Int64(k))
        }
        // With a delay of less than a frame, the offsets still count from the first member.
        let b = animations(send(&c, "/scene/recall", [.string("dark"), .string("delay"), .double(0.7 / 48000),
                                                      .string("stagger"), .double(0.7 / 48000)]))
        let first = Int64(b[0].2 * 48000 + 0.5)
        #expect(b.enumerated().allSatisfy { k, m in Int64(m.2 * 48000 + 0.5) - first == Int64((Double(k) * 0.7).rounded()) })
    }

    @Test(arguments: [
        [OSCArgument.string("nope")],                              // unknown scene
        [.string("Bad")],                                          // bad name
        [.int32(1)],
        [.string("dark"), .string("stagger"), .float32(-1)],       // bad stagger
        [.string("dark"), .string("stagger"), .string("x")],
        [.string("dark"), .string("stagger")],
        [.string("dark"), .string("stagger"), .float32(.nan)],
        [.string("dark"), .string("stagger"), .float32(50_000)],   // the last member over 24 h away
        [.string("dark"), .float32(-1)],
        [.string("dark"), .float32(1), .string("wobbly")],
        [.string("dark"), .string("bounce"), .int32(1)],
        [.string("dark"), .string("mode"), .string("sideways")],
        [.string("_previous")],                                    // none stored yet
    ])
    func badRecallsAreErrorsAndChangeNothing(_ args: [OSCArgument]) {
        var c = controller()
        twoScenes(&c)
        let before = c.targets
        let r = send(&c, "/scene/recall", args)
        #expect(r.error != nil && r.commands.isEmpty && r.recalls.isEmpty)
        #expect(r.replies.last?.address == "/error")
        #expect(c.targets == before)
        #expect(c.scenes.previous == nil)
    }

    @Test func previousHoldsWhatTheRecallChangedAndTwoRecallsOfItToggle() {
        var c = controller()
        twoScenes(&c)  // now bright: volume 0.9, cutoff 5000, pan 1
        send(&c, "/scene/recall", [.string("dark")])
        #expect(c.scenes.previous?.members.map(\.value) == [5000, 1, Double(Float(0.9))])
        send(&c, "/scene/recall", [.string("_previous")])
        #expect(c.target(cutoff) == 5000 && c.target(.pan) == 1)
        send(&c, "/scene/recall", [.string("_previous")])
        #expect(c.target(cutoff) == 400 && c.target(.pan) == -1)
    }

    @Test func aMorphBindsTheCommonMembersAndTheirTargetsFollowMorphsTarget() {
        var c = controller()
        twoScenes(&c)
        send(&c, "/volume", [.float32(0.5)])
        #expect(send(&c, "/scene/save", [.string("vol"), .string("/volume")]).error == nil)
        let r = send(&c, "/scene/morph", [.string("dark"), .string("bright")])
        #expect(r.error == nil)
        let bound = r.commands.compactMap { if case .bind(let p, let b) = $0.command { (p, b) } else { nil } }
        #expect(bound.map(\.0) == [cutoff, .pan, .volume])
        #expect(bound[0].1.from == 400 && bound[0].1.to == 5000 && bound[0].1.domain == .log)
        #expect(bound[0].1.glideSeconds == 0.25 && bound[0].1.glideCurve == .default)  // morph's default action
        #expect(c.target(cutoff) == 400)  // morph is at 0
        #expect(c.scenes.previous?.members.map(\.parameter) == ["cutoff", "pan", "volume"])
        send(&c, "/morph", [.float32(0.5), .float32(2), .string("linear")])
        #expect(abs(c.target(cutoff) - (400 * 5000).squareRoot()) < 1e-9)  // halfway in log frequency
        #expect(abs(c.target(.pan) - 0) < 1e-12)
        // A message for one member takes it away; the others stay bound.
        send(&c, "/cutoff", [.float32(300)])
        #expect(c.morph[cutoff] == nil && c.morph[.volume] != nil)
        send(&c, "/morph", [.float32(1)])
        #expect(c.target(cutoff) == 300 && c.target(.volume) == Double(Float(0.9)) && c.target(.pan) == 1)
        // Saving sees the bound targets.
        send(&c, "/scene/save", [.string("now"), .string("/pan")])
        #expect(c.scenes.scene(named: "now")?.members.first?.value == 1)
    }

    @Test func morphsTargetMovedByTheAudioSideMovesTheBoundTargets() {
        var c = controller()
        twoScenes(&c)
        send(&c, "/scene/morph", [.string("dark"), .string("bright")])
        let serial = send(&c, "/morph", [.float32(0.2)]).commands[0].serial
        c.apply(TargetUpdate(parameter: .morph, value: 1, serial: serial))  // a MIDI fader, say
        #expect(c.target(cutoff) == 5000)
    }

    @Test func aMorphWithoutACommonMemberIsAnErrorAndChangesNothing() {
        var c = controller()
        send(&c, "/scene/save", [.string("a"), .string("/volume")])
        send(&c, "/scene/save", [.string("b"), .string("/pan")])
        for args: [OSCArgument] in [[.string("a"), .string("b")], [.string("a"), .string("nope")], [.string("a")], [.string("a"), .string("B")]] {
            let r = send(&c, "/scene/morph", args)
            #expect(r.error != nil && r.commands.isEmpty)
        }
        #expect(c.morph.isEmpty && c.scenes.previous == nil)
    }

    @Test func releaseUnbindsEveryBoundMemberWhereItSounds() {
        var c = controller()
        twoScenes(&c)
        send(&c, "/scene/morph", [.string("dark"), .string("bright")])
        let r = send(&c, "/scene/release", [])
        let unbound = r.commands.compactMap { if case .unbind(let p) = $0.command { p } else { nil } }
        #expect(unbound == [.volume, .pan, cutoff])
        #expect(c.morph.isEmpty)
        #expect(send(&c, "/scene/release", []).commands.isEmpty)
    }

    @Test func listGetAndDelete() {
        var c = controller()
        twoScenes(&c)
        let list = send(&c, "/scene/list", []).replies
        #expect(list == [OSCMessage("/scene", [.string("bright"), .int32(3)]), OSCMessage("/scene", [.string("dark"), .int32(3)]),
                         OSCMessage("/scene/list/end")])
        let get = send(&c, "/scene/get", [.string("dark")]).replies
        #expect(get.first == OSCMessage("/scene/value", [.string("dark"), .string("cutoff"), .float32(400)]))
        #expect(get.count == 3)
        #expect(send(&c, "/scene/delete", [.string("dark")]).error == nil)
        #expect(send(&c, "/scene/get", [.string("dark")]).error != nil)
        #expect(send(&c, "/scene/delete", [.string("dark")]).error != nil)
    }

    @Test func aMemberThatIsNoParameterNowIsLeftOutWithAWarning() {
        var c = controller()
        c.configureScenes([Scene(name: "old", members: [SceneMember(parameter: "gone", value: 1),
                                                        SceneMember(parameter: "pan", value: 0.5)])])
        let r = send(&c, "/scene/recall", [.string("old")])
        #expect(r.error == nil && animations(r).map(\.0) == [.pan])
        #expect(r.replies.first?.address == "/warning")
        c.configureScenes([Scene(name: "none", members: [SceneMember(parameter: "gone", value: 1)])])
        #expect(send(&c, "/scene/recall", [.string("none")]).error != nil)
    }
}
