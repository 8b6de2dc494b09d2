import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §13 through a real JACK server, by frame: a recall starts every member on one frame
/// (a bundle's time tag's), `stagger` offsets them by whole frames, `/scene/done` reports the
/// end, `_previous` undoes, and a morph crossfades in each member's domain. The CV ports of
/// volume, cutoff (declared, log) and pan carry each value as it sounds.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct SceneTests {
    static let config = """
        [volume]
        cv = true

        [pan]
        cv = true

        \(Fixtures.cutoff())

        [scenes.look]
        volume = 0.25
        cutoff = 4000
        pan = -0.5
        duration = 0.5
        curve = "linear"

        [scenes.dark]
        volume = 0.2
        cutoff = 200

        [scenes.bright]
        volume = 0.8
        cutoff = 8000
        pan = 1
        """
    /// Recording channels 0, 1, 2, in the scene `look`'s order.
    static let ports = ["cv_volume", "cv_cutoff", "cv_pan"]

    /// paramd on `home` (a new one with `config` when nil).
    func start(_ server: JackServer, _ name: String, home: TestHome? = nil) async throws -> (ParamdProcess, TestHome) {
        let home = try home ?? {
            let fresh = TestHome(name)
            try fresh.writeConfig(Self.config)
            return fresh
        }()
        let paramd = try await ParamdProcess.start(server: server, name: name, environment: home.environment)
        return (paramd, home)
    }

    func record(_ server: JackServer, _ name: String) async throws -> Recorder {
        try await JackTool.record(server: server, name: "rec-\(name)", connect: Self.ports.map { "\(name):\($0)" }, seconds: 12)
    }

    /// One attempt's recording of `ports`: paramd `name` with `config`, 0.3 s recorded, then
    /// `steps`; paramd must exit 0.
    func recordScenes(_ server: JackServer, _ name: String,
                      _ steps: (_ paramd: ParamdProcess, _ recorder: Recorder) async throws -> Void) async throws -> Recording {
        let (paramd, _) = try await start(server, name)
        let recorder = try await record(server, name)
        try await recorder.record(seconds: 0.3)
        try await steps(paramd, recorder)
        let recording = try await recorder.stop()
        #expect(try await paramd.stop() == .exited(0))
        return recording
    }

    /// `look` from volume 1, cutoff 1000 Hz, pan 0, linear over `n` frames from frame s.
    static func look(_ channel: Int, _ k: Int, n: Int) -> Double {
        let u = k <= 0 ? 0 : k >= n ? 1 : Double(k) / Double(n)
        switch channel {
        case 0: return 1 + (0.25 - 1) * u
        case 1: return Foundation.exp(Foundation.log(1000.0) + (Foundation.log(4000.0) - Foundation.log(1000.0)) * u)
        default: return -0.5 * u
        }
    }

    /// The worst difference from `expected` over `frames` after `start` (relative for cutoff),
    /// and the share of those frames recorded.
    static func compare(_ timeline: FrameTimeline, _ channel: Int, start: Int64, frames: Range<Int>,
                        relative: Bool, _ expected: (Int) -> Double) -> (worst: Double, coverage: Double) {
        var worst = 0.0, compared = 0
        for (frame, value) in timeline.samples(channel, in: (start + Int64(frames.lowerBound))..<(start + Int64(frames.upperBound))) {
            let e = expected(Int(frame - start))
            let d = abs(Double(value) - e) / (relative ? e : 1)
            worst = d <= worst ? worst : d  // a NaN is the worst
            compared += 1
        }
        return (worst, Double(compared) / Double(frames.count))
    }

    /// The frame each member starts on: the last one still on its start value (a linear ramp
    /// sounds its start value at frame s and moves from s + 1).
    static func starts(_ timeline: FrameTimeline, from: Int64 = Int64.min) -> [Int64]? {
        let initial: [Float] = [1, 1000, 0]
        var out: [Int64] = []
        for channel in 0..<3 {
            guard let change = timeline.firstChange(channel, leaving: initial[channel], from: from), change.first == change.last + 1 else { return nil }
            out.append(change.last)
        }
        return out
    }

    @Test func aTimeTaggedRecallStartsEveryMemberOnTheTagsFrameEachAlongItsCurve() async throws {
        let server = try JackServer.required()
        let n = 24000
        var tag: OSCTimeTag = 0
        var offset: Int64 = 0
        let found = try await recordUntilCovered("a time-tagged recall") {
            try await recordScenes(server, "paramd-recall") { paramd, recorder in
                let client = try OSCClient(port: paramd.port)
                offset = Clocks.realtimeMinusMonotonicNanos()
                tag = Clocks.tag(inSeconds: 0.25)
                try client.send(.bundle(timeTag: tag, elements: [.message(OSCMessage("/scene/recall", [.string("look")]))]))
                try await recorder.record(seconds: 1.0)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<(starts: [Int64], fits: [(worst: Double, coverage: Double)], micros: Double)> in
            guard let starts = Self.starts(timeline), let micros = timeline.micros(of: starts[0]) else { return .tooLittle("a start fell in a gap") }
            // paramd places the tag on a frame when the bundle comes, by JACK's clock then; late
            // cycles between then and the start move JACK's frames against its clock (seen: 132 µs),
            // so the period's time at the start is no reference for where the tag belonged.
            let placing = (starts[0] - 12_000 - 2 * 256)...(starts[0] + 256)
            if let xrun = timeline.xrunStamps.first(where: placing.contains) {
                return .tooLittle("an xrun at frame \(xrun), between the bundle and the start")
            }
            let fits = (0..<3).map { c in
                Self.compare(timeline, c, start: starts[c], frames: -100..<(n + 500), relative: c == 1) { Self.look(c, $0, n: n) }
            }
            guard fits.allSatisfy({ $0.coverage >= 0.9 }) else { return .tooLittle("coverage \(fits.map(\.coverage))") }
            return .enough((starts, fits, micros))
        }
        guard let ((starts, fits, micros), timeline) = found else { return }
        let frameMicros = 1e6 / 48000
        let fromTag = micros - Clocks.monotonicMicros(of: tag, realtimeMinusMonotonic: offset)
        TestLog.write(String(format: "recall tagged: members start on frames %@, %+.2f µs (%+.3f frames) from the tag; worst volume %.3g, cutoff %.3g relative, pan %.3g; %@",
                             "\(starts)", fromTag, fromTag / frameMicros, fits[0].worst, fits[1].worst, fits[2].worst, timeline.description))
        #expect(starts[0] == starts[1] && starts[1] == starts[2], "one frame for every member: \(starts)")
        #expect(abs(fromTag) <= frameMicros / 2 + 2, "on the tag's frame, within ½ frame: \(fromTag) µs")
        #expect(fits[0].worst < 1e-7 && fits[2].worst < 1e-7, "volume \(fits[0].worst), pan \(fits[2].worst)")
        #expect(fits[1].worst < 2e-5, "cutoff \(fits[1].worst) relative")
    }

    @Test func staggerOffsetsMemberKByExactly4800KFrames() async throws {
        let server = try JackServer.required()
        let found = try await recordUntilCovered("a staggered recall") {
            try await recordScenes(server, "paramd-stagger") { paramd, recorder in
                try await oscsend(paramd.port, "/scene/recall", "sfssf", "look", "0.2", "linear", "stagger", "0.1")
                try await recorder.record(seconds: 0.8)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<([Int64], [Double])> in
            guard let starts = Self.starts(timeline) else { return .tooLittle("a start fell in a gap") }
            let fits = (0..<3).map { c in
                Self.compare(timeline, c, start: starts[c], frames: 0..<9700, relative: c == 1) { Self.look(c, $0, n: 9600) }
            }
            guard fits.allSatisfy({ $0.coverage >= 0.9 }) else { return .tooLittle("coverage \(fits.map(\.coverage))") }
            return .enough((starts, fits.map(\.worst)))
        }
        guard let ((starts, worst), timeline) = found else { return }
        TestLog.write("stagger 0.1: members start on frames \(starts) (offsets \(starts.map { $0 - starts[0] })); worst \(worst); \(timeline.description)")
        #expect(starts.map { $0 - starts[0] } == [0, 4800, 9600])
        #expect(worst[0] < 1e-7 && worst[1] < 2e-5 && worst[2] < 1e-7, "\(worst)")
    }

    @Test func aTimeTaggedStaggeredRecallKeepsItsWholeFrameOffsets() async throws {
        let server = try JackServer.required()
        let found = try await recordUntilCovered("a time-tagged staggered recall") {
            try await recordScenes(server, "paramd-tagstagger") { paramd, recorder in
                let client = try OSCClient(port: paramd.port)
                try client.send(.bundle(timeTag: Clocks.tag(inSeconds: 0.2), elements: [
                    .message(OSCMessage("/scene/recall", [.string("look"), .float32(0.2), .string("linear"), .string("stagger"), .float32(0.1)])),
                ]))
                try await recorder.record(seconds: 1.0)
            }
        } measure: { (timeline: FrameTimeline) -> Coverage<[Int64]> in
            guard let starts = Self.starts(timeline) else { return .tooLittle("a start fell in a gap") }
            return .enough(starts)
        }
        guard let (starts, timeline) = found else { return }
        TestLog.write("tagged, stagger 0.1: members start on frames \(starts) (offsets \(starts.map { $0 - starts[0] })); \(timeline.description)")
        #expect(starts.map { $0 - starts[0] } == [0, 4800, 9600])
    }

    @Test func sceneDoneSaysOneOrZeroWhenAMemberWasTakenOverAndPreviousUndoes() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await start(server, "paramd-done")
        let client = try OSCClient(port: paramd.port)
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/*")])
        _ = await listener.receive(until: "/subscribed")

        try client.send("/scene/recall", [.string("look"), .float32(0.2)])
        let done = await client.receive(until: "/scene/done", timeout: .seconds(5))
        #expect(done?.last == OSCMessage("/scene/done", [.string("look"), .int32(1)]), "\(String(describing: done))")
        let followed = await listener.receive(until: "/scene/done", timeout: .seconds(5))
        #expect(followed?.last == OSCMessage("/scene/done", [.string("look"), .int32(1)]), "a subscriber to /* gets it too")
        #expect(try await client.get("pan")?.value == -0.5)

        // _previous holds what the recall changed: recalling it brings those values back.
        try client.send("/scene/recall", [.string("_previous"), .float32(0)])
        #expect(await client.receive(until: "/scene/done")?.last == OSCMessage("/scene/done", [.string("_previous"), .int32(1)]))
        #expect(try await client.get("volume")?.value == 1)
        #expect(try await client.get("cutoff")?.value == 1000)
        #expect(try await client.get("pan")?.value == 0)
        // And once more: it toggles.
        try client.send("/scene/recall", [.string("_previous"), .float32(0)])
        _ = await client.receive(until: "/scene/done")
        #expect(try await client.get("cutoff")?.value == 4000)

        // A message for one member mid-recall takes it over: the recall ends with 0, the other
        // members still reach the scene.
        try client.send("/scene/recall", [.string("bright"), .float32(0.6), .string("linear")])
        try await client.waitForValue("volume") { value, _ in value > 0.3 }
        try client.send("/pan", [.float32(0.1), .float32(0)])
        let interrupted = await client.receive(until: "/scene/done", timeout: .seconds(5))
        #expect(interrupted?.last == OSCMessage("/scene/done", [.string("bright"), .int32(0)]), "\(String(describing: interrupted))")
        #expect(try await client.get("volume")?.value == 0.8)
        #expect(try await client.get("pan")?.value == 0.1)
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aMorphDrivenByMorphMovesCutoffEvenlyInLogFrequencyUntilAMessageTakesItAway() async throws {
        let server = try JackServer.required()
        let n = 96000  // /morph ffs 1 2 linear
        let found = try await recordUntilCovered("a morph") {
            let (paramd, _) = try await start(server, "paramd-morph")
            let client = try OSCClient(port: paramd.port)
            try client.send("/scene/morph", [.string("dark"), .string("bright")])
            // Bound: each member glides to its value at morph 0 (dark) with morph's default action.
            try await client.waitForValue("cutoff") { value, _ in value == 200 }
            try await client.waitForValue("volume") { value, _ in value == 0.2 }
            let recorder = try await record(server, "paramd-morph")
            try await recorder.record(seconds: 0.3)
            try await oscsend(paramd.port, "/morph", "ffs", "1", "2", "linear")
            try await recorder.record(seconds: 1.0)
            try await oscsend(paramd.port, "/cutoff", "ff", "100", "0")  // outside the morph's path
            try await recorder.record(seconds: 1.4)
            let recording = try await recorder.stop()
            #expect(try await client.get("volume")?.target == 0.8)
            #expect(try await client.get("cutoff")?.value == 100)
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(start: Int64, cutoffStart: Int64, taken: Int64, volume: Double, cutoff: Double)> in
            guard let change = timeline.firstChange(0, leaving: 0.2), change.first == change.last + 1,
                  let cutoffChange = timeline.firstChange(1, leaving: 200) else { return .tooLittle("the start fell in a gap") }
            let s = change.last
            guard let taken = timeline.firstFrame(1, from: s, where: { $0 == 100 }) else { return .tooLittle("the take-over fell in a gap") }
            let volume = Self.compare(timeline, 0, start: s, frames: 0..<(n + 500), relative: false) { k in
                0.2 + (0.8 - 0.2) * Double(min(max(k, 0), n)) / Double(n)
            }
            let cutoff = Self.compare(timeline, 1, start: s, frames: 0..<Int(taken - s - 1), relative: true) { k in
                Foundation.exp(Foundation.log(200.0) + (Foundation.log(8000.0) - Foundation.log(200.0)) * Double(k) / Double(n))
            }
            guard volume.coverage >= 0.9, cutoff.coverage >= 0.9 else { return .tooLittle("coverage \(volume.coverage), \(cutoff.coverage)") }
            return .enough((s, cutoffChange.last, taken, volume.worst, cutoff.worst))
        }
        guard let ((s, cutoffStart, taken, volume, cutoff), timeline) = found else { return }
        #expect(cutoffStart == s, "cutoff and volume leave dark on the same frame: \(cutoffStart), \(s)")
        TestLog.write("morph 0 → 1 over 2 s linear from frame \(s): volume worst \(volume), cutoff worst \(cutoff) relative until taken over at frame \(taken) (\(Double(taken - s) / 48000) s in); \(timeline.description)")
        #expect(volume < 1e-7, "volume keeps following morph: \(volume)")
        #expect(cutoff < 2e-5, "cutoff evenly in log frequency: \(cutoff)")
        let after = timeline.samples(1, in: taken..<(s + Int64(n) + 4800)).map(\.value)
        #expect(!after.isEmpty && after.allSatisfy { $0 == 100 }, "cutoff stays where the message put it: \(Set(after))")
    }

    @Test func scenesSurviveARestartAndSIGHUPReadsTheConfigScenesAgain() async throws {
        let server = try JackServer.required()
        let home = TestHome("paramd-keep")
        try home.writeConfig(Self.config)
        let (paramd, _) = try await start(server, "paramd-keep", home: home)
        let client = try OSCClient(port: paramd.port)
        try client.send("/pan", [.float32(0.75), .float32(0)])
        try await client.waitForValue("pan") { value, _ in value == 0.75 }
        try client.send("/scene/save", [.string("mine"), .string("/{pan,cutoff}")])
        // A saved scene replaces the config scene of the same name.
        try client.send("/scene/save", [.string("dark"), .string("/pan")])
        try client.send("/scene/list")
        let listed = await client.receive(until: "/scene/list/end")?.filter { $0.address == "/scene" }
        #expect(listed == ["bright", "dark", "look", "mine"].map { OSCMessage("/scene", [.string($0), .int32($0 == "dark" ? 1 : $0 == "mine" ? 2 : 3)]) })
        #expect(try await paramd.stop() == .exited(0))

        let (again, _) = try await start(server, "paramd-keep", home: home)
        let client2 = try OSCClient(port: again.port)
        try client2.send("/scene/get", [.string("mine")])
        let mine = await client2.receive(until: "/scene/value")
        let rest = await client2.receive(timeout: .seconds(1))
        #expect(mine?.last == OSCMessage("/scene/value", [.string("mine"), .string("cutoff"), .float32(1000)]))
        #expect(rest == OSCMessage("/scene/value", [.string("mine"), .string("pan"), .float32(0.75)]))
        try client2.send("/scene/get", [.string("dark")])
        #expect(await client2.receive(until: "/scene/value")?.last == OSCMessage("/scene/value", [.string("dark"), .string("pan"), .float32(0.75)]))
        // Deleted, the saved one gives the config scene back.
        try client2.send("/scene/delete", [.string("dark")])
        try client2.send("/scene/get", [.string("dark")])
        let config = [await client2.receive(), await client2.receive()]
        #expect(config == [OSCMessage("/scene/value", [.string("dark"), .string("volume"), .float32(0.2)]),
                           OSCMessage("/scene/value", [.string("dark"), .string("cutoff"), .float32(200)])])

        try home.writeConfig(Self.config + "\n[scenes.added]\ntone = 0.5\n")
        again.process.signal(SIGHUP)
        try await again.process.waitForLine(containing: "scenes from the config file:", on: .stderr, timeout: .seconds(5))
        try client2.send("/scene/get", [.string("added")])
        #expect(await client2.receive(until: "/scene/value")?.last == OSCMessage("/scene/value", [.string("added"), .string("tone"), .float32(0.5)]))
        try client2.send("/scene/recall", [.string("added"), .float32(0)])
        #expect(await client2.receive(until: "/scene/done")?.last == OSCMessage("/scene/done", [.string("added"), .int32(1)]))
        #expect(try await client2.get("tone")?.value == 0.5)
        #expect(try await again.stop() == .exited(0))
    }

    @Test func aProgramChangeRecallsASceneAndAFaderOnMorphCrossfades() async throws {
        let server = try JackServer.required()
        let home = TestHome("paramd-scene-midi")
        try home.writeConfig(Self.config + """

            [[midi]]
            param = "morph"
            cc = 1

            [[midi]]
            program = 5
            scene = "look"
            channel = 2
            duration = 0
            """)
        let (paramd, _) = try await start(server, "paramd-scene-midi", home: home)
        let client = try OSCClient(port: paramd.port)
        let listener = try OSCClient(port: paramd.port)
        try listener.send("/subscribe", [.string("/scene")])
        _ = await listener.receive(until: "/subscribed")
        // Program 5 on channel 1 is not the table's; on channel 2 it recalls `look` at once.
        let programs = try await JackTool.midi(server: server, connect: ["paramd-scene-midi:midi_in"],
                                               send: [(10, 0, [0xC0, 5]), (20, 3, [0xC1, 5])])
        try await programs.waitUntilSent()
        let done = await listener.receive(until: "/scene/done", timeout: .seconds(5))
        #expect(done?.last == OSCMessage("/scene/done", [.string("look"), .int32(1)]), "\(String(describing: done))")
        #expect(try await client.get("pan")?.value == -0.5)
        #expect(try await client.get("cutoff")?.value == 4000)
        _ = try await programs.stop()

        // Bound between dark and bright, CC 1 moves every member: all the way, then halfway.
        try client.send("/scene/morph", [.string("dark"), .string("bright")])
        try await client.waitForValue("cutoff") { value, _ in value == 200 }
        let fader = try await JackTool.midi(server: server, connect: ["paramd-scene-midi:midi_in"],
                                            send: [(10, 0, [0xB0, 1, 127])])
        try await fader.waitUntilSent()
        let top = try await client.waitForValue("cutoff") { value, _ in value == 8000 }
        #expect(top?.value == 8000)
        #expect(try await client.get("volume")?.value == 0.8)
        #expect(try await client.get("morph")?.target == 1)
        _ = try await fader.stop()
        let half = try await JackTool.midi(server: server, connect: ["paramd-scene-midi:midi_in"],
                                           send: [(10, 0, [0xB0, 1, 64])])
        try await half.waitUntilSent()
        let m = 64.0 / 127
        let expected = Float(Foundation.exp(Foundation.log(200.0) + (Foundation.log(8000.0) - Foundation.log(200.0)) * m))
        let middle = try await client.waitForValue("cutoff") { value, _ in abs(value - expected) <= expected * 1e-5 }
        #expect(middle.map { abs($0.value - expected) <= expected * 1e-5 } == true, "cutoff at morph 64/127 in log frequency: \(String(describing: middle)), expected \(expected)")
        #expect(middle.map { abs($0.target - expected) <= expected * 1e-5 } == true, "its target follows morph's: \(String(describing: middle))")
        _ = try await half.stop()
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func badInputIsAnErrorAndChangesNothing() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await start(server, "paramd-scene-bad")
        let client = try OSCClient(port: paramd.port)
        try client.send("/scene/save", [.string("solo"), .string("/pan")])
        for k in 0..<124 { try client.send("/scene/save", [.string("s\(k)"), .string("/tone")]) }  // 128 with the config's 3
        try client.send("/scene/list")
        #expect(await client.receive(until: "/scene/list/end", timeout: .seconds(10))?.count == 129)
        let bad: [(String, [OSCArgument])] = [
            ("/scene/recall", [.string("nope")]),
            ("/scene/recall", [.string("Bad Name")]),
            ("/scene/save", [.string("Bad Name")]),
            ("/scene/save", [.string("one-more")]),  // the 129th
            ("/scene/save", [.string("x"), .string("/nothing*")]),
            ("/scene/morph", [.string("solo"), .string("dark")]),  // no member in common
            ("/scene/recall", [.string("look"), .string("stagger"), .float32(-1)]),
            ("/scene/delete", [.string("nope")]),
        ]
        for (address, args) in bad {
            let reply = try await client.request(address, args, reply: "/error")
            #expect(reply?.arguments.first == .string(address), "\(address) \(args): \(String(describing: reply))")
        }
        try client.send("/scene/list")
        let after = await client.receive(until: "/scene/list/end", timeout: .seconds(10))
        #expect(after?.count == 129 && after?.contains { $0.arguments.first == .string("_previous") } == false)
        #expect(try await client.get("volume")?.target == 1)
        #expect(try await client.get("cutoff")?.target == 1000)
        #expect(try await client.get("pan")?.target == 0)
        #expect(try await paramd.stop() == .exited(0))
    }
}
