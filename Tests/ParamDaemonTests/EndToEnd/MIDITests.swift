import Foundation
import ParamCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §10 end to end: a real JACK server, the built paramd, `paramd-jacktool midi` sending
/// JACK MIDI into `midi_in` at chosen frames and recording `midi_out`, and `paramd-jacktool`
/// feeding DC 1.0 into in_1 and recording out_1 — so out_1 is `volume` sample by sample (SPEC §2
/// with `tone` 0 and `input` 1), placed on JACK's frame counter like the MIDI events.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct MIDITests {
    static let n = 960  // 20 ms at 48 kHz: the default MIDI animation

    /// paramd with `config`, DC 1.0 into in_1, a recorder on out_1.
    static func start(_ label: String, config: String) async throws -> (ParamdProcess, Feeder, Recorder, TestHome) {
        let server = try JackServer.required()
        let (paramd, home) = try await ParamdProcess.start(server: server, name: "pd-\(label)", home: "midi-\(label)", config: config)
        let feeder = try await JackTool.feed(server: server, connect: ["pd-\(label):in_1"], value: 1)
        let recorder = try await JackTool.record(server: server, connect: ["pd-\(label):out_1"], seconds: 10)
        return (paramd, feeder, recorder, home)
    }

    /// One attempt of a recorded MIDI test: paramd with `config` as `start` sets it up, `events`
    /// sent into its midi_in, `seconds` more recorded; paramd must exit 0. The frames the
    /// events were sent on are left in `sentFrames` for the measure.
    static func recordSending(_ label: String, config: String, _ events: [(period: Int, offset: Int, bytes: [UInt8])],
                              thenRecord seconds: Double) async throws -> Recording {
        let (paramd, feeder, recorder, _) = try await start(label, config: config)
        let sender = try await JackTool.midi(server: JackServer.required(), connect: ["pd-\(label):midi_in"], send: events)
        try await sender.waitUntilSent()
        try await recorder.record(seconds: seconds)
        let log = try await sender.stop()
        let recording = try await recorder.stop()
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        sentFrames.withLock { $0 = log.sent.map(\.frame) }
        return recording
    }

    @Test func ccSevenAtOffsetHundredStartsTheVolumeAnimationOnThatFrame() async throws {
        let target = 64.0 / 127
        let found: ((frame: Int64, comparison: CurveComparison, change: Int64, ending: [Float]), FrameTimeline)? = try await recordUntilCovered("cc 7 at offset 100") {
            try await Self.recordSending("cc7", config: """
                [[midi]]
                param = "volume"
                cc = 7
                channel = 1
                """, [(40, 100, [0xB0, 7, 64])], thenRecord: 0.3)
        } measure: { timeline in
            guard let frame = sentFrames.withLock({ $0.first }) else { return .tooLittle("nothing sent") }
            guard let change = timeline.firstChange(leaving: 1) else { return .tooLittle("no change recorded") }
            let comparison = CurveComparison(timeline, start: frame, frames: -200..<(Self.n + 500)) { k in
                k <= 0 ? 1 : (k >= Self.n ? target : 1 + (target - 1) * Double(k) / Double(Self.n))
            }
            guard comparison.coverage >= 0.9 else { return .tooLittle("around frame \(frame): \(comparison)") }
            // From the end of the animation on, as far as recorded.
            let ending = timeline.samples(in: (frame + Int64(Self.n))..<(frame + Int64(Self.n) + 500)).map(\.value)
            guard !ending.isEmpty else { return .tooLittle("the frames after the animation's end fell in a gap") }
            return .enough((frame, comparison, change.last, ending))
        }
        guard let ((frame, comparison, change, ending), timeline) = found else { return }
        TestLog.write("cc 7 = 64 sent on JACK frame \(frame) (offset 100); out_1 leaves 1 after frame \(change); 20 ms linear: \(comparison); \(timeline.description)")
        #expect(change == frame, "the animation starts on the event's own frame: the last frame at 1 is the event's")
        #expect(comparison.worst < 1e-6, "\(comparison)")
        #expect(ending.allSatisfy { $0 == Float(target) }, "ends on the mapped value 64/127: \(Set(ending))")
    }

    @Test func midiPortsAreJackMIDIWithPrettyNamesInJackMetadata() async throws {
        let server = try JackServer.required()
        // As ReachTests does for the audio ports: JACK2 shares its metadata database between
        // servers, keyed by port UUIDs another test server may reuse, so try a fresh paramd again.
        var seen: [String] = []
        var types = ""
        for attempt in 1...4 {
            let paramd = try await ParamdProcess.start(server: server, name: "pd-pretty\(attempt)")
            let lsp = try await JackServer.withLspTurn {
                let lsp = try ChildProcess("/usr/bin/jack_lsp", ["-s", server.name, "-t", "pd-pretty\(attempt):midi"],
                                           environment: ["JACK_NO_START_SERVER": "1"], label: "jack_lsp")
                _ = try await lsp.waitForExit()
                return lsp
            }
            types = lsp.standardOutput
            var text = ""
            for port in ["midi_in", "midi_out"] {
                let property = try ChildProcess("/usr/bin/jack_property", ["--port", "-l", "pd-pretty\(attempt):\(port)", "http://jackaudio.org/metadata/pretty-name"],
                                                environment: ["JACK_DEFAULT_SERVER": server.name], label: "jack_property")
                _ = try await property.waitForExit()
                text += property.standardOutput
            }
            #expect(try await paramd.stop() == .exited(0))
            seen.append(text)
            if text.contains("paramd MIDI in (controllers)") && text.contains("paramd MIDI out (feedback)") { break }
        }
        #expect(types.components(separatedBy: "8 bit raw midi").count == 3, "midi_in and midi_out are JACK MIDI ports: \(types)")
        #expect(seen.last?.contains("paramd MIDI in (controllers)") == true && seen.last?.contains("paramd MIDI out (feedback)") == true, "\(seen)")
    }

    /// The test tool itself: what one `paramd-jacktool midi` sends at (period, offset) another
    /// records on the same frame, bytes intact — so the frames the tests compare are JACK's.
    @Test func theMIDIToolDeliversEventsOnTheFramesItReports() async throws {
        let server = try JackServer.required()
        let recorder = try await JackTool.midi(server: server, name: "midi-rec-self")
        let sender = try await JackTool.midi(server: server, connect: ["midi-rec-self:midi_in"],
                                             send: [(10, 0, [0xB0, 7, 1]), (10, 200, [0x90, 60, 100]), (11, 255, [0xE3, 5, 64])])
        try await sender.waitUntilSent()
        try await recorder.waitUntilReceived("the three events") { $0.count >= 3 }
        let sent = try await sender.stop()
        let received = try await recorder.stop()
        #expect(sent.sent.map(\.bytes) == [[0xB0, 7, 1], [0x90, 60, 100], [0xE3, 5, 64]])
        #expect(sent.sent.map(\.offset) == [0, 200, 255])
        #expect(sent.sent[2].frame - sent.sent[0].frame == 256 + 255, "a period and 255 frames apart")
        #expect(received.received.map(\.frame) == sent.sent.map(\.frame))
        #expect(received.received.map(\.bytes) == sent.sent.map(\.bytes))
    }

    @Test func fourteenBitAndNRPNReachWhatSevenBitsCannot() async throws {
        let server = try JackServer.required()
        let (paramd, feeder, recorder, _) = try await Self.start("fine", config: """
            [fine]
            min = 0
            max = 1

            [[midi]]
            param = "volume"
            cc14 = [7, 39]

            [[midi]]
            param = "fine"
            nrpn = 1024
            channel = 2
            """)
        // volume: MSB 63, LSB 127 = 8191. fine: NRPN 1024 (99 = 8, 98 = 0) ← 5000 = 39·128 + 8.
        let sender = try await JackTool.midi(server: server, connect: ["pd-fine:midi_in"], send: [
            (20, 10, [0xB0, 7, 63]), (20, 10, [0xB0, 39, 127]),
            (22, 0, [0xB1, 99, 8]), (22, 1, [0xB1, 98, 0]), (22, 2, [0xB1, 6, 39]), (22, 3, [0xB1, 38, 8]),
        ])
        try await sender.waitUntilSent()
        let client = try OSCClient(port: paramd.port)
        try await client.waitForValue("volume") { value, _ in value == Float(8191.0 / 16383) }
        try await client.waitForValue("fine") { value, _ in value == Float(5000.0 / 16383) }
        let volume = try await client.get("volume")
        let fine = try await client.get("fine")
        let status = try await client.request("/status", reply: "/status")
        func pair(_ name: String) -> OSCArgument? {
            guard let args = status?.arguments, let i = args.firstIndex(of: .string(name)), i + 1 < args.count else { return nil }
            return args[i + 1]
        }
        _ = try await sender.stop()
        let recording = try await recorder.stop()
        try await feeder.stop()
        #expect(try await paramd.stop() == .exited(0))
        let v = Float(8191.0 / 16383), f = Float(5000.0 / 16383)
        TestLog.write("cc14 7/39 = 63/127 → volume \(volume.map { "\($0)" } ?? "?"), nrpn 1024 = 5000 → fine \(fine.map { "\($0)" } ?? "?"); out_1 ends \(recording.channels[0].last ?? .nan)")
        #expect(volume?.value == v && volume?.target == v, "8191/16383 exactly")
        #expect(fine?.value == f && fine?.target == f, "5000/16383 exactly")
        #expect(recording.channels[0].last == v, "out_1 sounds it")
        #expect(pair("midi_received") == .int32(6))
        #expect(pair("midi_started") == .int32(3), "the cc14 pair on one frame is one animation; NRPN data MSB and LSB two")
        #expect(pair("midi_dropped") == .int32(0))
        // Neither is a 7-bit step: no k/127 is that close.
        #expect((0...127).allSatisfy { abs(Double($0) / 127 - 8191.0 / 16383) > 1e-5 })
    }

    @Test func aCCSweepSoundsAsAContinuousCurve() async throws {
        let sweep: [(frame: Int, value: UInt8)] = (0...127).map { (Int((Double($0) * 48000 / 127).rounded()), UInt8($0)) }
        let first = 40 * 256  // from period 40 of the sender
        let events = sweep.map { (period: (first + $0.frame) / 256, offset: (first + $0.frame) % 256, bytes: [UInt8(0xB0), 7, $0.value]) }
        let found: ((frames: [Int64], max: Double, at: Int64, compared: Int, spacing: Int64, ending: [Float]), FrameTimeline)? = try await recordUntilCovered("cc sweep") {
            try await Self.recordSending("sweep", config: """
                [volume]
                initial = 0

                [[midi]]
                param = "volume"
                cc = 7
                """, events, thenRecord: 0.2)
        } measure: { timeline in
            let frames = sentFrames.withLock { $0 }
            guard frames.count == 128 else { return .tooLittle("sent \(frames.count) of 128") }
            // The sweep is 128 events 1/127 s apart. A sender that fell behind on a busy machine
            // and sent some in a bunch made another sweep (still within the bound below, which
            // follows the actual spacing, but not the sweep this test is about): try again.
            let closest = zip(frames.dropFirst(), frames).map { $0 - $1 }.min() ?? 0
            guard closest >= 377 else { return .tooLittle("the sender bunched events \(closest) frames apart") }
            var worst = 0.0, at: Int64 = 0, compared = 0
            for (frame, value) in timeline.samples(in: frames[0]..<(frames[127] + Int64(Self.n) + 100)) {
                guard let next = timeline.value(at: frame + 1) else { continue }
                compared += 1
                let step = abs(Double(next) - Double(value))
                if step > worst { worst = step; at = frame }
            }
            let needed = Int(frames[127] - frames[0]) + Self.n + 100
            guard Double(compared) >= 0.9 * Double(needed) else { return .tooLittle("\(compared) of \(needed) steps recorded") }
            // A CC event in a cycle JACK ran without paramd is lost with that cycle's buffer, so
            // the next step jumps 2Δ: an xrun JACK reported within an animation before the largest
            // step makes the attempt say nothing about paramd (the bound assumes every event came).
            if let xrun = timeline.xrunStamps.first(where: { ((at - Int64(Self.n) - 512)...at).contains($0) }) {
                return .tooLittle("an xrun at frame \(xrun), \(at - xrun) frames before the largest step (\(worst) at \(at))")
            }
            // Where the last animation has ended: the 100 frames after it, as far as recorded.
            let end = frames[127] + Int64(Self.n)
            let ending = timeline.samples(in: end..<(end + 100)).map(\.value)
            guard !ending.isEmpty else { return .tooLittle("the frames after the sweep's end fell in a gap") }
            return .enough((frames, worst, at, compared, closest, ending))
        }
        guard let ((_, worst, at, compared, spacing, ending), timeline) = found else { return }
        // The bound. Each CC step moves the target by Δ = 1/127 and starts a linear animation
        // over N = 960 frames from the sounding value; events come M frames apart (M ≥ 377 <
        // N, so each interrupts the last). With d_k the distance still to go when event k comes,
        // the value travels (d_k + Δ)/N a frame for M frames, so d_{k+1} = (d_k + Δ)(1 − M/N),
        // from d_0 = 0: d_k rises to Δ(N/M − 1) and never beyond. A frame's step is therefore at
        // most (d_k + Δ)/N ≤ Δ/M, and, for events N or more apart (uninterrupted), Δ/N.
        // So: step ≤ Δ / min(M, N). Without animation every step would be Δ, at once.
        let delta = 1.0 / 127
        let bound = delta / Double(min(Int(spacing), Self.n))
        TestLog.write("cc sweep 0…127 in 1 s (events ≥ \(spacing) frames apart): largest sample step \(worst) at frame \(at) over \(compared) steps; bound Δ/min(M,N) = \(bound); a 7-bit jump would be \(delta); \(timeline.description)")
        #expect(spacing >= 377)
        #expect(worst <= bound * (1 + 1e-4) + 1e-7, "largest step \(worst) over the bound \(bound)")
        #expect(worst > bound / 4, "the sweep moved as fast as it should (not stalled)")
        #expect(ending.allSatisfy { $0 == 1 }, "ends at 127 → 1: \(ending.count) frames after the end recorded, \(Set(ending))")
    }

    @Test func learnBindsTheControllerThatMovesAndSurvivesARestart() async throws {
        let server = try JackServer.required()
        let home = TestHome("midi-learn")
        try home.writeConfig("""
            [cutoff]
            min = 20
            max = 20000
            domain = "log"
            """)
        var paramd = try await ParamdProcess.start(server: server, name: "pd-learn", environment: home.environment)
        var client = try OSCClient(port: paramd.port)
        let ack = try await client.request("/midi/learn", [.string("cutoff")], reply: "/midi/learning")
        #expect(ack?.arguments == [.string("cutoff"), .string("any")])
        let sender = try await JackTool.midi(server: server, connect: ["pd-learn:midi_in"], send: [(5, 0, [0xB0, 74, 10])])
        let learned = await client.receive(until: "/midi/learned", timeout: .seconds(5))?.last
        _ = try await sender.stop()
        #expect(learned?.arguments == [.string("cutoff"), .string("cc"), .int32(74), .int32(1)])
        // Now CC 74 drives cutoff (and the moving CC itself did not).
        try await JackTool.midiMoves("cutoff", of: client, server: server, into: "pd-learn:midi_in", send: [(5, 0, [0xB0, 74, 127])]) { value, _ in
            value == 20000
        }
        let driven = try await client.get("cutoff")
        #expect(driven?.value == 20000 && driven?.target == 20000, "CC 74 = 127 → cutoff max: \(String(describing: driven))")
        try client.send("/midi/map")
        let map = await client.receive(until: "/midi/map/end")
        #expect(map?.first { $0.address == "/midi/mapping" }?.arguments == [
            .string("cutoff"), .string("cc"), .int32(74), .int32(-1), .int32(1), .float32(0.02), .string("linear"),
            .string("log"), .int32(0), .string("learned")])
        #expect(try await paramd.stop() == .exited(0))
        let state = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        TestLog.write("state after learn: \(state)")
        #expect(state.contains("\"midi\""))

        // Restarted: the learned mapping is back (from the state file) and drives cutoff.
        paramd = try await ParamdProcess.start(server: server, name: "pd-learn", environment: home.environment)
        client = try OSCClient(port: paramd.port)
        #expect(try await client.get("cutoff")?.target == 20000, "the target came back too")
        try await JackTool.midiMoves("cutoff", of: client, server: server, into: "pd-learn:midi_in", send: [(5, 0, [0xB0, 74, 0])]) { value, _ in
            value == 20
        }
        let after = try await client.get("cutoff")
        #expect(after?.value == 20 && after?.target == 20, "CC 74 = 0 after the restart → cutoff min: \(String(describing: after))")
        let forgot = try await client.request("/midi/forget", [.string("cutoff")], reply: "/midi/forgot")
        #expect(forgot?.arguments == [.string("cutoff"), .int32(1)])
        let refused = try await client.request("/midi/learn", [.string("nothing")], reply: "/error")
        #expect(refused?.arguments.first == .string("/midi/learn"))
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aLearnedMappingTheStateCannotUseIsLeftOutAndTheRestIsRestored() async throws {
        let server = try JackServer.required()
        let home = TestHome("midi-badstate")
        try FileManager.default.createDirectory(atPath: home.stateFolder, withIntermediateDirectories: true)
        try """
            {"version": 1,
             "parameters": {"volume": {"target": 0.25, "duration": 0.25, "curve": "default"}},
             "midi": [{"param": "gone", "kind": "cc", "number": 1, "channel": 1},
                      {"param": "volume", "kind": "sysex", "number": 1, "channel": 1},
                      {"param": "volume", "kind": "cc", "number": 11, "channel": 2}]}
            """.write(toFile: home.stateFile, atomically: true, encoding: .utf8)
        let paramd = try await ParamdProcess.start(server: server, name: "pd-badstate", environment: home.environment)
        let client = try OSCClient(port: paramd.port)
        #expect(try await client.get("volume")?.target == 0.25, "the state was used")
        try client.send("/midi/map")
        let map = (await client.receive(until: "/midi/map/end"))?.filter { $0.address == "/midi/mapping" } ?? []
        #expect(map.map { Array($0.arguments.prefix(5)) } == [[.string("volume"), .string("cc"), .int32(11), .int32(-1), .int32(2)]])
        #expect(try await paramd.stop() == .exited(0))
        #expect(paramd.process.standardError.contains("2 learned mapping(s) in the state file left out: gone (no such parameter), volume (unknown kind 'sysex')"),
                "\(paramd.process.standardError)")
    }

    /// Sends `events` into pd-kinds:midi_in from a new MIDI tool and returns the `/midi/learned`
    /// that follows. Events in a cycle JACK ran without paramd are lost: when none came and the
    /// server reported an xrun meanwhile, they are sent again (three tries); none without one fails.
    static func learned(_ client: OSCClient, server: JackServer,
                        sending events: [(period: Int, offset: Int, bytes: [UInt8])]) async throws -> OSCMessage? {
        for attempt in 1...3 {
            let sender = try await JackTool.midi(server: server, connect: ["pd-kinds:midi_in"], send: events)
            let learned = await client.receive(until: "/midi/learned", timeout: .seconds(5))?.last
            let log = try await sender.stop()
            if learned != nil || log.xruns == 0 || attempt == 3 { return learned }
            TestLog.write("MIDI learn, attempt \(attempt): nothing learned, \(log.xruns) xrun(s) while sending: sent again")
        }
        return nil
    }

    @Test func learnTakesOnlyTheKindAskedFor() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await ParamdProcess.start(server: server, name: "pd-kinds", home: "midi-learnkinds",
                                                        config: "[fine]\nmin = 0\nmax = 1\n")
        let client = try OSCClient(port: paramd.port)
        // cc14: a plain CC 74 (not an MSB of a pair) is passed over; CC 7 + 39 is learned as [7, 39].
        #expect(try await client.request("/midi/learn", [.string("volume"), .string("cc14")], reply: "/midi/learning")?.arguments
                == [.string("volume"), .string("cc14")])
        let cc14 = try await Self.learned(client, server: server, sending: [(5, 0, [0xB0, 74, 1]), (8, 0, [0xB2, 7, 100]), (8, 0, [0xB2, 39, 5])])
        #expect(cc14?.arguments == [.string("volume"), .string("cc14"), .int32(7), .int32(3)])
        // nrpn: CCs and pitch bend are passed over; the NRPN sequence is learned, not its CC 99.
        #expect(try await client.request("/midi/learn", [.string("fine"), .string("nrpn")], reply: "/midi/learning") != nil)
        let nrpn = try await Self.learned(client, server: server, sending: [
            (5, 0, [0xB0, 74, 1]), (6, 0, [0xE0, 0, 64]),
            (8, 0, [0xB0, 99, 8]), (8, 1, [0xB0, 98, 0]), (8, 2, [0xB0, 6, 64]), (8, 3, [0xB0, 38, 0])])
        #expect(nrpn?.arguments == [.string("fine"), .string("nrpn"), .int32(1024), .int32(1)])
        try client.send("/midi/map")
        let map = (await client.receive(until: "/midi/map/end"))?.filter { $0.address == "/midi/mapping" } ?? []
        #expect(map.map { Array($0.arguments.prefix(5)) } == [
            [.string("volume"), .string("cc14"), .int32(7), .int32(39), .int32(3)],
            [.string("fine"), .string("nrpn"), .int32(1024), .int32(-1), .int32(1)]])
        // The learned pair drives volume to 14 bits: 100·128 + 5.
        try await JackTool.midiMoves("volume", of: client, server: server, into: "pd-kinds:midi_in",
                                     send: [(5, 0, [0xB2, 7, 100]), (5, 0, [0xB2, 39, 5])]) { _, target in
            target == Float(Double(100 << 7 | 5) / 16383)
        }
        #expect(try await client.get("volume")?.target == Float(Double(100 << 7 | 5) / 16383))
        #expect(try await client.request("/midi/learn", [.string("fine"), .string("sysex")], reply: "/error")?.arguments
                == [.string("/midi/learn"), .string("the kind is cc, cc14, nrpn, pitchbend or any")])
        #expect(try await paramd.stop() == .exited(0))
    }
}

/// The frames a test's MIDI sender sent on, handed from its recording closure to its measure.
private let sentFrames = Mutex<[Int64]>([])

/// `[[midi]]` tables that cannot be used: paramd does not start (exit 78), and says which file,
/// line and `midi[N].key`, and why, on one line.
extension MIDITests {
    static let badConfigs: [ConfigFileTests.BadConfig] = [
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 130\n", line: 3, key: "midi[1].cc", words: "controller number 0…119"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 7\n\n[[midi]]\nparam = \"cutof\"\ncc = 8\n", line: 6, key: "midi[2].param", words: "no parameter named 'cutof'"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 7\nnrpn = 5\n", line: 4, key: "midi[1].nrpn", words: "one source per mapping"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc14 = [7]\n", line: 3, key: "midi[1].cc14", words: "[MSB, LSB]"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 7\nchannel = 17\n", line: 4, key: "midi[1].channel", words: "MIDI channel 1…16"),
        .init(text: "[[midi]]\nnote = \"frequency\"\nfeedback = true\n", line: 3, key: "midi[1].feedback", words: "notes are not sent back"),
        .init(text: "[[midi]]\nparam = \"pan\"\ncc = 10\ndomain = \"log\"\n", line: 4, key: "midi[1].domain", words: "log needs"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 7\ncurve = \"wobbly\"\n", line: 4, key: "midi[1].curve", words: "unknown curve 'wobbly'"),
        .init(text: "port = 9000\n\n[[midi]]\nparam = \"volume\"\n", line: 3, key: "midi[1]", words: "needs one of"),
        .init(text: "[[midi]]\nparam = \"volume\"\ncc = 7\nspeed = 3\n", line: 4, key: "midi[1].speed", words: "unknown key"),
        .init(text: "port = 9000\nmidi = 5\n", line: 2, key: "midi", words: "write each as [[midi]]"),
        .init(text: "port = 9000\n[midi]\nparam = \"volume\"\ncc = 7\n", line: 2, key: "midi", words: "write each as [[midi]]"),
    ]

    @Test(arguments: badConfigs)
    func aBadMIDIMappingIsAConfigErrorNamingTheLineAndKey(_ bad: ConfigFileTests.BadConfig) async throws {
        let (error, configFile) = try await bad.refusal(on: try JackServer.required(), home: "midi-badconfig", name: "pd-badmidi")
        bad.expectNamed(in: error, configFile: configFile)
    }
}
