import Testing
@testable import ParamCore

/// The modulator routes on the control side (SPEC §15): the commands they produce, the model
/// `/mod/get` replies from, and refusals that change nothing.
@Suite struct ControllerModulatorTests {
    static let registry: ParameterRegistry = {
        var r = ParameterRegistry.builtIn
        _ = try! r.declare(ParameterSpec(name: "cutoff", minimum: 0, maximum: 1, initial: 0.5, cv: .value))
        return r
    }()
    static let table = RouteTable(registry: registry)
    static let cutoff = registry.id(named: "cutoff")!

    func send(_ c: inout Controller, _ address: String, _ args: [OSCArgument]) -> ControlResult {
        c.handle(OSCMessage(address, args), route: Self.table.route(for: address)!, sounding: { _ in 0.5 })
    }

    @Test func modStartsAModulatorAndGetRepliesIt() {
        var c = Controller(registry: Self.registry)
        #expect(send(&c, "/cutoff/mod/get", []).replies == [OSCMessage("/cutoff/mod", [.string("none")])])
        let r = send(&c, "/cutoff/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.25)])
        #expect(r.error == nil)
        guard r.commands.count == 1, case .modulate(let p, let spec) = r.commands[0].command else {
            Issue.record("expected one modulate command: \(r.commands)")
            return
        }
        #expect(p == Self.cutoff)
        #expect(spec.shape == .sine && spec.rate == .hertz(2) && spec.depth == 0.25)
        #expect(c.target(Self.cutoff) == 0.5, "the target is about the animated value")
        #expect(send(&c, "/cutoff/mod/get", []).replies == [OSCMessage("/cutoff/mod", [
            .string("sine"), .float32(2), .float32(0.25), .float32(0), .string("bi"),
        ])])
        // A musical rate is kept as written and reaches the audio side in beats.
        let musical = send(&c, "/cutoff/mod", [.string("saw"), .string("4n")])
        if case .modulate(_, let s) = musical.commands.first?.command { #expect(s.rate == .beats(1)) }
        #expect(send(&c, "/cutoff/mod/get", []).replies.first?.arguments[1] == .string("4n"))
    }

    @Test func depthAndStopNeedAModulator() {
        var c = Controller(registry: Self.registry)
        #expect(send(&c, "/cutoff/mod/depth", [.float32(0)]).error != nil)
        #expect(send(&c, "/cutoff/mod/stop", []).error != nil)
        _ = send(&c, "/cutoff/mod", [.string("random"), .float32(1), .string("seed"), .int32(3)])
        let depth = send(&c, "/cutoff/mod/depth", [.float32(0), .float32(2)])
        guard case .modulateDepth(_, let spec) = depth.commands.first?.command else {
            Issue.record("expected a depth command")
            return
        }
        #expect(spec.target == 0 && spec.seconds == 2 && spec.curve == DefaultAction.standard.curve)
        let stop = send(&c, "/cutoff/mod/stop", [.float32(0.5)])
        guard case .stopModulator(_, let seconds) = stop.commands.first?.command else {
            Issue.record("expected a stop command")
            return
        }
        #expect(seconds == 0.5)
        #expect(send(&c, "/cutoff/mod/get", []).replies == [OSCMessage("/cutoff/mod", [.string("none")])])
    }

    @Test(arguments: [
        [OSCArgument.string("wobble"), .float32(1)],
        [.string("sine"), .float32(-1)],
        [.string("sine"), .float32(0)],
        [.string("sine"), .string("4x")],
        [.string("sine"), .string("0m")],
        [.string("sine"), .float32(1), .string("depth"), .float32(1.5)],
        [.string("sine"), .float32(1), .string("depth"), .float32(-0.1)],
        [.string("sine"), .float32(1), .string("speed"), .float32(1)],
        [.string("sine")],
        [.string("sine"), .string("4")],
        [.string("sine"), .float32(.infinity)],
    ])
    func badInputIsRefusedAndChangesNothing(_ args: [OSCArgument]) {
        var c = Controller(registry: Self.registry)
        _ = send(&c, "/cutoff/mod", [.string("triangle"), .float32(3)])
        let before = c.modulators[Self.cutoff]
        let r = send(&c, "/cutoff/mod", args)
        #expect(r.error != nil)
        #expect(r.commands.isEmpty)
        #expect(r.replies.first?.address == "/error")
        #expect(c.modulators[Self.cutoff] == before)
    }

    @Test(arguments: [[OSCArgument.float32(1.5)], [.float32(-0.1)], [.float32(0.5), .string("4x")], [.string("deep")]])
    func aBadDepthIsRefusedAndChangesNothing(_ args: [OSCArgument]) {
        var c = Controller(registry: Self.registry)
        _ = send(&c, "/cutoff/mod", [.string("triangle"), .float32(3), .string("depth"), .float32(0.3)])
        let mark = c.modulators.marks[Self.cutoff.index]
        let r = send(&c, "/cutoff/mod/depth", args)
        #expect(r.error != nil && r.commands.isEmpty && r.replies.first?.address == "/error")
        #expect(c.modulators.depths[Self.cutoff.index] == Double(Float(0.3)) && c.modulators.marks[Self.cutoff.index] == mark)
    }

    @Test func theModulatorRoutesAreThereForEveryParameter() {
        for p in Self.registry.ids {
            let name = Self.registry[p].name
            for suffix in ["mod", "mod/depth", "mod/stop", "mod/get"] {
                #expect(Self.table.route(for: "/\(name)/\(suffix)") != nil)
            }
        }
        #expect(Self.table.route(for: "/nothing/mod") == nil, "an unknown parameter has no /mod: the daemon replies /error")
    }

    @Test func aNewRendererGetsTheModelsModulatorsAtTheirDepth() {
        var c = Controller(registry: Self.registry)
        _ = send(&c, "/cutoff/mod", [.string("sh"), .float32(4), .string("fade"), .float32(3)])
        _ = send(&c, "/cutoff/mod/depth", [.float32(0.3), .float32(0)])
        let commands = c.modulatorCommands()
        guard commands.count == 1, case .modulate(let p, let spec) = commands[0].command else {
            Issue.record("expected one modulate command: \(commands)")
            return
        }
        #expect(p == Self.cutoff && spec.depth == Double(Float(0.3)) && spec.fade == .zero)
    }

    /// `/mod/get` replies the depth sounding now: what the audio side published under the
    /// last modulator command's serial; before that command reaches it, the depth the command
    /// sets at once, or (a fade) the published depth it starts from.
    @Test func getRepliesTheDepthTheAudioSidePublished() {
        var c = Controller(registry: Self.registry)
        let depths = ModulatorDepthSnapshot(capacity: ParameterRegistry.capacity)
        defer { depths.deallocate() }
        c.depthSnapshot = depths
        func depth() -> OSCArgument? { send(&c, "/cutoff/mod/get", []).replies.first?.arguments[2] }
        let start = send(&c, "/cutoff/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.25)]).commands[0]
        #expect(start.serial != 0)
        #expect(depth() == .float32(0.25), "set at once, not yet applied")
        depths.publish(at: Self.cutoff.index, depth: 0.25, serial: start.serial)
        let fade = send(&c, "/cutoff/mod/depth", [.float32(0), .float32(2)]).commands[0]
        #expect(fade.serial != start.serial)
        #expect(depth() == .float32(0.25), "a fade not yet started: the depth it starts from")
        depths.publish(at: Self.cutoff.index, depth: 0.2, serial: fade.serial)
        #expect(depth() == .float32(0.2), "the fade under way")
        depths.publish(at: Self.cutoff.index, depth: 0.1, serial: fade.serial)
        #expect(depth() == .float32(0.1))
        #expect(c.modulators.depths[Self.cutoff.index] == 0, "the state keeps the depth's target")
        // A fade-in on a new /mod starts from the depth sounding.
        _ = send(&c, "/cutoff/mod", [.string("saw"), .float32(1), .string("fade"), .float32(4)])
        #expect(depth() == .float32(0.1))
        // Two commands before the audio side applies either: the fade starts where the first put it.
        var d = Controller(registry: Self.registry)
        let quiet = ModulatorDepthSnapshot(capacity: ParameterRegistry.capacity)
        defer { quiet.deallocate() }
        d.depthSnapshot = quiet
        _ = send(&d, "/cutoff/mod", [.string("sine"), .float32(2), .string("depth"), .float32(0.25)])
        _ = send(&d, "/cutoff/mod/depth", [.float32(0), .float32(2)])
        #expect(send(&d, "/cutoff/mod/get", []).replies.first?.arguments[2] == .float32(0.25))
        // A renderer that starts afresh gets each modulator under its last serial.
        #expect(c.modulatorCommands().first?.serial == c.modulators.marks[Self.cutoff.index].serial)
    }

    @Test func aStopsProvisionalTargetIsTheAnimatedValueNotTheWave() {
        var c = Controller(registry: Self.registry)
        _ = send(&c, "/cutoff/mod", [.string("sine"), .float32(1), .string("depth"), .float32(0.5)])
        let route = Self.table.route(for: "/cutoff/stop")!
        let r = c.handle(OSCMessage("/cutoff/stop", []), route: route, sounding: { _ in 0.93 })  // the wave's top
        #expect(r.error == nil)
        #expect(c.target(Self.cutoff) == 0.5)
    }
}
