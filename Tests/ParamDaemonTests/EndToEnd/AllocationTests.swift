import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The compiler proves the audio path with @_noLocks; this proves the running process: an
/// LD_PRELOAD shim counts allocations made inside paramd's JACK process callback while it
/// renders animations on every parameter — the five, and declared ones with CV ports and values
/// sent on (SPEC §8) — answers OSC, and reads JACK MIDI into animations and writes feedback
/// (SPEC §10: cc, cc14, NRPN, pitch bend and note mappings, feedback on, a learn mid-way), and
/// recalls scenes, undoes them with `_previous`, and morphs between them (SPEC §13), and
/// starts animations in musical time on the timeline's grid while /tempo re-times them, and
/// follows a JACK timebase master's BBT and falls back when the transport stops (§14), and
/// records, plays, loops, punches in to and undoes takes (§17).
/// The shim also counts the page faults the callback takes: none, from the first period on,
/// however far the rings fill. paramd maps its code and constants and the top 64 KiB of JACK's
/// thread's stack before the first period (ResidentCode.swift, `paramdThreadInit`), and the
/// control side makes the memory the audio thread writes resident beforehand.
/// LinkAllocationTests runs the same with `link = true`, beside a Link peer.
@Suite(.serialized, .jackServer(rate: 48000, period: 64))
struct AllocationTests {
    @Test func theLiveJackThreadAllocatesNothingWhileParamdAnimatesAndAnswersOSC() async throws {
        let server = try JackServer.required()
        let report = TestDirectory.file("alloc-paramd") + ".txt"
        let sink = try OSCClient(port: 9)  // where the sends go; counted and dropped
        let home = TestHome("alloc")
        try home.writeConfig("transport = \"jack\"\n\n" + Self.config(sinkPort: sink.socket.port))
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-alloc",
                                                   environment: try Self.environment(report: report, home: home))
        let client = try OSCClient(port: paramd.port)
        // A timebase master at 100 BPM in 3/4: paramd follows it, falls back when the transport
        // stops and follows again, once before the counter is warm and again in round 30 and 40.
        let masterInput = try CommandPipe(label: "alloc-timebase-master")
        let masterCommand = masterInput.command(["python3", Binaries.packageRoot.appendingPathComponent("Tests/Support/jack-timebase-master.py").path,
                                                 server.name, "100", "3", "1920"])
        let master = try ChildProcess(masterCommand[0], Array(masterCommand.dropFirst()), label: "alloc-timebase-master")
        try await master.waitForLine(exactly: "ready")
        for (command, timeline) in [("start", "jack"), ("stop", "internal"), ("start", "jack")] {
            try masterInput.send(command)
            try await pollUntil("/status timeline is \(timeline)", timeout: .seconds(5)) {
                try await client.request("/status", reply: "/status")?.statusPairs["timeline"] == .string(timeline)
            }
        }
        try await Self.exercise(server: server, paramd: "paramd-alloc", client: client, sink: sink, report: report,
                                eachRound: { round in
                                    if round == 30 || round == 40 { try masterInput.send(round == 30 ? "stop" : "start") }
                                }) { try await paramd.stop() }
        try masterInput.send("quit")
        #expect(try await master.waitForExit() == .exited(0))
    }

    /// The shim's environment, reporting every 50 ms, with `home`'s config and state.
    static func environment(report: String, home: TestHome) throws -> [String: String] {
        try Binaries.allocShimEnvironment(report: report).merging(home.environment) { $1 }
            .merging(["PARAMD_ALLOC_REPORT_INTERVAL": "0.05"]) { $1 }
    }

    /// Declared parameters with CV ports and sends to `sinkPort`, MIDI mappings of every
    /// kind, two scenes.
    static func config(sinkPort: UInt16) -> String {
        """
            [cutoff]
            min = 20
            max = 20000
            domain = "log"
            cv = true
            cv-scale = "unit"
            send = { url = "osc.udp://127.0.0.1:\(sinkPort)/n_set", args = [1000, "cutoff", "$value"], rate = 0 }

            [fader]
            min = -60
            max = 6
            cv = true
            send = [{ url = "osc.udp://127.0.0.1:\(sinkPort)/fader", rate = 200 }]

            [idle]
            min = 0
            max = 1
            cv = true

            [pan]
            cv = true

            [[midi]]
            param = "volume"
            cc = 7
            feedback = true

            [[midi]]
            param = "cutoff"
            cc14 = [1, 33]
            feedback = true

            [[midi]]
            param = "fader"
            nrpn = 1024
            channel = 2
            feedback = true

            [[midi]]
            param = "pan"
            pitchbend = true
            feedback = true

            [[midi]]
            param = "tone"
            note-velocity = true

            [[midi]]
            note = "frequency"

            [scenes.a]
            volume = 0.5
            cutoff = 300
            pan = 0.5
            fader = -20

            [scenes.b]
            volume = 0.2
            cutoff = 3000
            pan = -0.5
            """
    }

    /// Drives the running paramd named `paramd` on `server` through `client` for 1.5 s (every
    /// kind of message, MIDI in and out, a subscriber; `eachRound` adds to each of the 60
    /// rounds), stops it with `stop`, and checks the
    /// shim's `report`: no allocation, no free, no page fault.
    static func exercise(server: JackServer, paramd: String, client: OSCClient, sink: OSCClient, report: String,
                         eachRound: (Int) async throws -> Void = { _ in },
                         stop: () async throws -> ExitStatus) async throws {
        var forwarded = 0
        let feeder = try await JackTool.feed(server: server, name: "feeder-alloc", connect: ["\(paramd):in_1", "\(paramd):in_2"], value: 0.5)
        // MIDI through the run: every kind of mapping, some events sharing a frame.
        var events: [(period: Int, offset: Int, bytes: [UInt8])] = []
        for k in stride(from: 0, to: 1600, by: 2) {
            let v = UInt8(k / 2 % 128)
            events.append((k, k % 64, [0xB0, 7, v]))
            if k % 4 == 0 { events += [(k, 5, [0xB0, 1, v]), (k, 5, [0xB0, 33, 127 - v])] }
            if k % 8 == 0 { events += [(k, 9, [0xB1, 99, 8]), (k, 9, [0xB1, 98, 0]), (k, 10, [0xB1, 6, v]), (k, 11, [0xB1, 38, v])] }
            if k % 6 == 0 { events.append((k, 20, [0xE0, v, 127 - v])) }
            if k % 16 == 0 { events += [(k, 30, [0x90, 40 + v % 40, 1 + v % 100]), (k + 1, 30, [0x80, 40 + v % 40, 0])] }
            if k % 10 == 0 { events.append((k, 40, [0xB3, 74, v])) }  // unmapped: what the learn below binds
        }
        let midiIn = try await JackTool.midi(server: server, connect: ["\(paramd):midi_in"], send: events)
        let midiOut = try await JackTool.midi(server: server, record: ["\(paramd):midi_out"])
        var warm: AllocationReport? = nil
        let curves = ["linear", "easeIn", "easeOut", "easeInEaseOut", "default", "cubic-bezier(0.1,0.7,0.9,0.2)"]
        for round in 0..<60 {
            if round == 2 {
                // Every kind of message has run once and what it started has ended; from here
                // the rings fill (values stream to a subscriber every period). The report 75
                // periods on (0.4 s) splits the faults, if any, into the first touches of code
                // and stack (before) and of memory the rings reach (after).
                let calls = try AllocationReport.load(report).processCalls
                try await waitUntil("75 more process calls in the allocation report", timeout: .seconds(30),
                                    on: [FileWatch([(report as NSString).deletingLastPathComponent])]) {
                    ((try? AllocationReport.load(report))?.processCalls ?? 0) >= calls + 75
                }
                warm = try AllocationReport.load(report)
                try client.send("/subscribe", [.string("/*"), .float32(0)])
            }
            let curve = OSCArgument.string(curves[round % curves.count])
            try client.send(.bundle(timeTag: 1, elements: [
                .message(OSCMessage("/tone", [.float32(Float(round % 2)), .float32(0.05), curve])),
                .message(OSCMessage("/frequency", [.float32(Float(200 + 50 * (round % 7))), .float32(0.05), curve])),
                .message(OSCMessage("/pan", [.float32(round % 2 == 0 ? -1 : 1), .float32(0.03), curve])),
                .message(OSCMessage("/volume", [.float32(Float(round % 3) / 2), .float32(0.04), curve])),
                .message(OSCMessage("/input", [.float32(0.5), .float32(0)])),
                .message(OSCMessage("/cutoff", [.float32(Float(200 + 900 * (round % 5))), .float32(0.04), curve])),
                .message(OSCMessage("/fader", [.float32(Float(-60 + 11 * (round % 7))), .float32(0.03), .string("spring(0.6)")])),
            ]))
            try client.send("/volume/get")
            try client.send("/nonsense", [.string("x")])
            // Keyframes, springs, additive layers, repeats and stops, some time-tagged.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let soon = OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + 0.01)!
            try client.send(.bundle(timeTag: soon, elements: [
                .message(OSCMessage("/pan/keyframes", [.float32(0.05), .float32(-1), .float32(1), .float32(0.2), .float32(0),
                                                      .string("curves"), .string("easeOutBounce"), .string("linear"), .string("easeInBack(2)"),
                                                      .string("calc"), .string(["linear", "cubic", "paced", "discrete"][round % 4])])),
                .message(OSCMessage("/tone", [.float32(Float(round % 3) / 3), .float32(0), .string("spring(1,300,12)")])),
                .message(OSCMessage("/frequency", [.float32(330), .float32(0.02), .string("easeOutElastic"), .string("mode"), .string("additive")])),
                .message(OSCMessage("/volume", [.float32(0.5), .float32(0.01), .string("spring(0.7)"), .string("repeat"), .float32(1.5), .string("autoreverse"), .int32(1)])),
            ]))
            try client.send("/cutoff/keyframes", [.float32(0.05), .float32(100), .float32(5000), .float32(300)])
            // Scenes: a staggered recall and a morph bound and driven (members of one recall, a
            // glide into the binding, members following morph), then the undo and the release.
            if round % 2 == 0 {
                try client.send("/scene/recall", [.string("a"), .float32(0.03), curve, .string("stagger"), .float32(0.005)])
                try client.send("/scene/morph", [.string("a"), .string("b")])
                try client.send("/morph", [.float32(Float(round % 4) / 3), .float32(0.04), curve])
            } else {
                try client.send("/scene/recall", [.string("_previous"), .float32(0.02)])
                try client.send("/scene/release")
            }
            // Musical time: a duration in beats started on the grid after a delay in beats, and
            // tempo changes (one gliding) that re-time the animations in beats in flight.
            try client.send("/tone", [.float32(Float(round % 4) / 4), .string("16n"), curve, .string("delay"), .string("64n"),
                                      .string("quantize"), .string("32n")])
            try client.send("/cutoff/keyframes", [.string("8t"), .float32(300), .float32(3000), .string("quantize"), .string("64n")])
            if round % 5 == 2 { try client.send("/tempo", [.float32(round % 10 == 2 ? 140 : 120), .float32(round % 20 == 2 ? 0.05 : 0)]) }
            // Modulators: every shape each round, over log (cutoff), linear (fader, idle, pan,
            // input) and the tone's frequency, in Hz and musical time, with fades, a depth
            // animation and a stop with a fade (restarted the next round).
            let shapes = ["sine", "triangle", "saw", "square", "random", "sh"]
            for (k, name) in ["cutoff", "fader", "pan", "frequency", "idle", "input"].enumerated() {
                let rate: OSCArgument = k % 2 == 0 ? .float32(Float(3 + k)) : .string(["8n", "1b", "16t"][round % 3])
                try client.send("/\(name)/mod", [.string(shapes[(k + round) % shapes.count]), rate, .string("depth"), .float32(0.2),
                                                 .string("fade"), .float32(round % 2 == 0 ? 0.01 : 0), .string("seed"), .int32(Int32(round))])
            }
            try client.send("/cutoff/mod/depth", [.float32(Float(round % 3) / 4), .float32(0.02), curve])
            try client.send("/fader/mod/stop", [.float32(0.02)])
            if round % 10 == 9 { try client.send("/stop") }
            if round == 20 { try client.send("/midi/learn", [.string("idle")]) }
            try Self.takes(round: round, client: client)
            try await eachRound(round)
            if round == 40 { try client.send("/midi/forget", [.string("idle")]); try client.send("/midi/map") }
            try await Task.sleep(for: .milliseconds(25))  // sleep: pacing: the 60 rounds spread over 1.5 s, beside MIDI, feedback and sends
            _ = client.socket.drain()
            forwarded += sink.socket.drain().count
        }
        try client.send("/take/list")
        let takes = (await client.receive(until: "/take/list/end", timeout: .seconds(5)) ?? []).filter { $0.address == "/take" }
        TestLog.write("takes while the counter ran: \(takes.map { "\($0.arguments)" })")
        #expect(takes.contains { $0.arguments.first == .string("all") && ($0.arguments[1].numericValue ?? 0) > 100 }, "a take of everything")
        let sent = try await midiIn.stop()
        let fed = try await midiOut.stop()
        try await feeder.stop()
        #expect(try await stop() == .exited(0))
        TestLog.write("MIDI while the counter ran: \(sent.sent.count) events sent into midi_in, \(fed.received.count) feedback messages out of midi_out")
        #expect(sent.sent.count > 1000, "MIDI in was busy: \(sent.sent.count)")
        #expect(fed.received.count > 100, "feedback was busy: \(fed.received.count)")
        let counted = try AllocationReport.load(report)
        TestLog.write("allocations on the JACK process thread: \(counted)")
        #expect(counted.processCalls > 1000, "the callback ran: \(counted)")
        #expect(counted.allocations == 0, "\(counted)")
        #expect(counted.frees == 0, "\(counted)")
        let warmFaults = try #require(warm).faults
        TestLog.write("page faults in the callback: \(warmFaults) warming up, \(counted.faults - warmFaults) after")
        #expect(counted.faults == 0, "the callback took \(warmFaults) page faults warming up and \(counted.faults - warmFaults) after: \(counted)")
        forwarded += sink.socket.drain().count
        TestLog.write("values sent on to the sink while the counter ran: \(forwarded)")
        #expect(forwarded > 100, "the sends were busy too: \(forwarded)")
    }

    /// Takes in round `round`: everything recorded (MIDI's steps too), looped, punched in to,
    /// undone, played again on a grid; a musical take of the fader looped, then deleted.
    static func takes(round: Int, client: OSCClient) throws {
        switch round {
        case 1: try client.send("/take/record", [.string("all")])
        case 8, 20: try client.send("/take/stop", [.string("all")])
        case 10: try client.send("/take/play", [.string("all"), .string("loop"), .string("inf")])
        case 14: try client.send("/take/record", [.string("all"), .string("overdub"), .int32(1), .string("touch"), .float32(0.05)])
        case 22: try client.send("/take/undo", [.string("all")])
        case 24: try client.send("/take/play", [.string("all"), .string("loop"), .int32(3), .string("quantize"), .string("16n")])
        case 30: try client.send("/take/record", [.string("bar"), .string("/fader"), .string("quantize"), .string("16n"), .string("length"), .string("8n")])
        case 36: try client.send("/take/play", [.string("bar"), .string("loop"), .string("inf")])
        case 50: try client.send("/take/delete", [.string("bar")])
        default: break
        }
    }
}
