import Foundation
import ParamCore
import Testing

/// SPEC §18 through a real JACK server, by frame, with LTC made by libltc's encoder and MTC, each
/// played into paramd by `paramd-jacktool` (a client of its own, which says on which JACK frame
/// each timecode frame begins): a cue's first changed sample is within 5 samples of its LTC
/// frame at every rate and ±0.5 % speed; 200 cues 0.2 s apart fire once each; a locate joins a
/// fade in the middle, a locate back fires cues again, a cue in a dropout still fires on its
/// frame and freewheel runs out with one `tc_locked 0`; MTC within 1 ms; bad input refused.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct TimecodeEndToEndTests {
    static let cutoff = "[cutoff]\nmin = 0\nmax = 1\ninitial = 1\ncv = true\n"

    /// paramd `name` chasing `source` with `config` after it, its `cv_cutoff` and out_1 recorded.
    static func start(_ server: JackServer, _ name: String, source: String = "ltc", config: String = "",
                      seconds: Double) async throws -> (ParamdProcess, Recorder, OSCClient) {
        let (paramd, _) = try await ParamdProcess.start(server: server, name: name,
                                                        config: "timecode = \"\(source)\"\n" + config + Self.cutoff)
        let recorder = try await JackTool.record(server: server, name: "rec-\(name)", connect: ["\(name):cv_cutoff", "\(name):out_1"],
                                                 seconds: seconds)
        try await recorder.record(seconds: 0.2)
        return (paramd, recorder, try OSCClient(port: paramd.port))
    }

    /// A cue of `/volume 0.5 0` at 01:00:02:00, with volume at 0: out_1's first sample that is not
    /// 0 against where the LTC frame began, at each rate and speed (the rate found from the signal).
    @Test(arguments: [("24", 1.0), ("25", 1.0), ("29.97df", 1.0), ("30", 1.0), ("25", 1.005), ("25", 0.995),
                      ("29.97df", 1.005), ("30", 0.995)])
    func aCueStartsWithinFiveSamplesOfItsLTCFrame(fps: String, speed: Double) async throws {
        let server = try JackServer.required()
        var player: TimecodePlayer? = nil
        var status: [String: OSCArgument] = [:]
        let found = try await recordUntilCovered("a cue at \(fps) fps, speed \(speed)") {
            let (paramd, recorder, client) = try await Self.start(server, "paramd-tc", config: "[volume]\ninitial = 0\n[tone]\ninitial = 1\n", seconds: 8)
            let reply = try await client.request("/at", [.string("01:00:02:00"), .string("/volume"), .float32(0.5), .float32(0)], reply: "/at")
            #expect(reply == OSCMessage("/at", [.string("1")]))
            player = try await JackTool.timecode("ltc", server: server, connect: "paramd-tc:ltc_in", fps: fps, speed: speed,
                                                 segments: ["play 01:00:00:00 3"])
            try await recorder.record(seconds: 2.5)
            if let m = try await client.request("/status", reply: "/status") {
                status = [:]
                for i in stride(from: 0, to: m.arguments.count - 1, by: 2) {
                    if case .string(let key) = m.arguments[i] { status[key] = m.arguments[i + 1] }
                }
            }
            try await player!.waitUntilIdle()
            let recording = try await recorder.stop()
            try await player!.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(cue: Int64, first: Int64)> in
            guard let player, let cue = player.frames["01:00:02:00"] else { return .tooLittle("the tool did not play 01:00:02:00") }
            if let skip = player.skipBefore(cue, in: timeline) { return .tooLittle(skip) }
            guard let first = timeline.firstFrame(1, from: cue - 2000, where: { $0 != 0 }) else {
                let any = timeline.samples(1).first { $0.value != 0 }
                return .tooLittle("the cue fell in a gap (out_1 first not 0 at \(any.map { "\($0.frame)" } ?? "none"), the cue's frame \(cue))")
            }
            return .enough((cue, first))
        }
        guard let ((cue, first), timeline) = found else { return }
        TestLog.write("LTC \(fps) fps at speed \(speed): 01:00:02:00 begins on frame \(cue), out_1 starts on \(first) (\(first - cue) samples); \(timeline.description)")
        #expect(abs(first - cue) <= 5, "\(first - cue) samples from the LTC frame")
        #expect(status["tc_source"] == .string("ltc"))
        #expect(status["tc_locked"] == .int32(1))
        #expect(status["tc_fps"] == .float32(fps == "29.97df" ? 29.97 : Float(fps)!))
        if case .string(let tc)? = status["tc"] { #expect(tc.hasPrefix("01:00:02"), "tc \(tc) about 2.7 s in") }
    }

    @Test func twoHundredCuesTwoTenthsOfASecondApartFireOnceEach() async throws {
        let server = try JackServer.required()
        var labels: [String] = []
        var cues = "timecode-fps = \"25\"\n"
        for i in 0..<200 {
            let label = TimecodeAddress(frameNumber: 90_000 + 25 + Int64(5 * i), rate: .fps25).description
            labels.append(label)
            cues += "[[at]]\ntime = \"\(label)\"\nmessage = [\"/cutoff\", \(Double(i + 1) / 200), 0]\n"
        }
        var player: TimecodePlayer? = nil
        let found = try await recordUntilCovered("200 cues", attempts: 3) {
            let (paramd, recorder, _) = try await Self.start(server, "paramd-200", config: cues, seconds: 46)
            player = try await JackTool.timecode("ltc", server: server, connect: "paramd-200:ltc_in", fps: "25",
                                                 segments: ["play 00:59:59:20 42"])
            try await player!.waitUntilIdle()
            try await recorder.record(seconds: 0.2)
            let recording = try await recorder.stop()
            try await player!.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<[(label: String, expected: Int64, got: Int64?, afterSkip: Bool)]> in
            guard let player else { return .tooLittle("no frames") }
            let frames = player.frames
            var rows: [(String, Int64, Int64?, Bool)] = []
            for (i, label) in labels.enumerated() {
                guard let expected = frames[label] else { return .tooLittle("the tool did not play \(label)") }
                let value = Float(Double(i + 1) / 200)
                rows.append((label, expected, timeline.firstFrame(0, from: expected - 200, where: { $0 == value }),
                             player.skipBefore(expected, in: timeline) != nil))
            }
            // A cue in the two words after a skipped cycle is not judged by its sample (skipBefore).
            let judged = rows.filter { !$0.3 && $0.2 != nil }.count
            return judged >= 50 ? .enough(rows) : .tooLittle("\(judged) cues placed away from skipped cycles")
        }
        guard let (rows, timeline) = found else { return }
        let missing = rows.filter { $0.got == nil }.count
        let judged = rows.filter { !$0.afterSkip }
        let worst = judged.compactMap { row in row.got.map { abs($0 - row.expected) } }.max() ?? 0
        // Each value sounds once, in order: the run of distinct values changes exactly 200 times.
        var changes = 0
        var last: Float? = nil
        for (_, v) in timeline.samples(0) where v != last {
            if last != nil { changes += 1 }
            last = v
        }
        TestLog.write("200 cues 0.2 s apart: \(rows.count - missing) placed, \(judged.count) away from skipped cycles with worst \(worst) samples from the LTC frame, \(changes) changes; \(timeline.description)")
        #expect(missing <= timeline.setAside.count, "a cue not found only where JACK skipped the recorder")
        #expect(worst <= 5)
        // A value lasts 9,600 frames: a gap hides the first frame of one, never all of it.
        #expect(changes == 200, "each cue fired once")
    }

    /// One tape: 01:00:05:00 for 2 s, a jump to 01:00:12:00 (over a 4 s fade cued at 10:00),
    /// back to 01:00:09:00 (past a jump to 1 cued at 09:10 and the fade again), on to 20:00 for a
    /// second, then a dropout with a cue 0.2 s into it. Each of the four is judged in the first
    /// recording whose words before it JACK did not skip (`TimecodePlayer.skipBefore`).
    @Test func locatesJoinFadesFireAgainAndADropoutFreewheels() async throws {
        let server = try JackServer.required()
        let config = """
            [[at]]
            time = "01:00:10:00"
            message = ["/cutoff", 0.0, 4, "linear"]
            [[at]]
            time = "01:00:09:10"
            message = ["/cutoff", 1.0, 0]
            [[at]]
            time = "01:00:21:05"
            message = ["/cutoff", 0.25, 0]

            """
        var player: TimecodePlayer? = nil
        var paramdLog = ""
        let found = try await recordUntilEachCovered("locates and a dropout", parts: LocatePart.allCases) {
            let (paramd, recorder, _) = try await Self.start(server, "paramd-locate", config: "timecode-fps = \"25\"\n" + config, seconds: 14)
            player = try await JackTool.timecode("ltc", server: server, connect: "paramd-locate:ltc_in", fps: "25",
                                                 segments: ["play 01:00:05:00 2", "play 01:00:12:00 4", "play 01:00:09:00 3",
                                                            "play 01:00:20:00 1", "gap 2"])
            try await player!.waitUntilIdle()
            try await paramd.process.waitForLine(containing: "tc_locked 0", on: .stderr, timeout: .seconds(5))
            let recording = try await recorder.stop()
            try await player!.stop()
            paramdLog = paramd.process.standardError
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> [LocatePart: Coverage<LocateReading>] in
            guard let player else { return [:] }
            let frames = player.sequence
            func at(_ label: String, after: Int64 = 0) -> Int64? { frames.first { $0.label == label && $0.frame > after }?.frame }
            var parts: [LocatePart: Coverage<LocateReading>] = [:]
            func part(_ part: LocatePart, before frame: Int64?, _ reading: (Int64) -> LocateReading?) {
                guard let frame else { parts[part] = .tooLittle("the tape's frames"); return }
                if let skip = player.skipBefore(frame, in: timeline) { parts[part] = .tooLittle(skip); return }
                parts[part] = reading(frame).map { .enough($0) } ?? .tooLittle("the change fell in a gap")
            }
            // The jump is taken on its second word, which ends where 01:00:12:02 begins.
            let twelve = at("01:00:12:00")
            part(.join, before: at("01:00:12:02")) { decoded in
                guard let twelve, let joined = timeline.firstChange(0, leaving: 1, from: twelve)?.first else { return nil }
                // From the join on, the fade sounds where it would be had it started at 01:00:10:00.
                let begun = Double(twelve) - 2 * 48000
                var worst = 0.0
                for (frame, value) in timeline.samples(0, in: joined..<(joined + 48000)) {
                    worst = max(worst, abs(Double(value) - (1 - (Double(frame) - begun) / (4 * 48000))))
                }
                return LocateReading(expected: decoded, got: joined, worst: worst)
            }
            let nineTen = twelve.flatMap { at("01:00:09:10", after: $0) }
            part(.nineTen, before: nineTen) { frame in
                guard let nine = twelve.flatMap({ at("01:00:09:00", after: $0) }),
                      let again = timeline.firstChange(0, leaving: 0, from: nine)?.first else { return nil }
                return LocateReading(expected: frame, got: again)
            }
            part(.ten, before: nineTen.flatMap { at("01:00:10:00", after: $0) }) { frame in
                guard let nineTen, let fade = timeline.firstChange(0, leaving: 1, from: nineTen + 1)?.first else { return nil }
                return LocateReading(expected: frame, got: fade)
            }
            // The cue 0.2 s into the dropout lies on the line the last words before it drew.
            let last = frames.last(where: { $0.label == "01:00:20:24" })?.frame
            part(.dropout, before: last.map { $0 + 1920 }) { end in
                let cue = end + 5 * 1920
                guard let fired = timeline.firstFrame(0, from: cue - 100, where: { $0 == 0.25 }) else { return nil }
                let lost = paramdLog.split(separator: "\n").filter { $0.contains("tc_locked 0") }.map(String.init)
                return LocateReading(expected: cue, got: fired, lockLostLines: lost)
            }
            return parts
        }
        guard let found, let join = found[.join], let nineTen = found[.nineTen], let ten = found[.ten], let dropout = found[.dropout] else { return }
        TestLog.write("locate to 12:00 (decoded by \(join.expected)): joined on \(join.got), the fade then off by \(join.worst); back: 09:10 on \(nineTen.got - nineTen.expected), 10:00 on \(ten.got - ten.expected) samples from their LTC frames; dropout cue \(dropout.got - dropout.expected) samples, \(dropout.lockLostLines.count) tc_locked 0")
        #expect(join.got >= join.expected && join.got - join.expected <= 2 * 256, "joined within a period of the frame decoded after the jump: \(join.got - join.expected)")
        #expect(join.worst <= 6.0 / (4 * 48000), "the 2 s point at 01:00:12:00: worst \(join.worst)")
        #expect(abs(nineTen.got - nineTen.expected) <= 5 && abs(ten.got - ten.expected) <= 5, "cues passed again fire again on their frames")
        #expect(abs(dropout.got - dropout.expected) <= 5, "a cue 0.2 s into a dropout on its frame: \(dropout.got - dropout.expected)")
        #expect(dropout.lockLostLines.count == 1, "one log line when freewheel runs out: \(dropout.lockLostLines)")
    }

    @Test func aCueOnMTCWithinAMillisecondOfItsQuarterFrames() async throws {
        let server = try JackServer.required()
        var player: TimecodePlayer? = nil
        let found = try await recordUntilCovered("an MTC cue") {
            let (paramd, recorder, client) = try await Self.start(server, "paramd-mtc", source: "mtc", seconds: 7)
            #expect(try await client.request("/at", [.string("01:00:02:00"), .string("/cutoff"), .float32(0.5), .float32(0)], reply: "/at") != nil)
            player = try await JackTool.timecode("mtc", server: server, connect: "paramd-mtc:midi_in", fps: "25",
                                                 segments: ["play 01:00:00:00 4"])
            try await player!.waitUntilIdle()
            let recording = try await recorder.stop()
            try await player!.stop()
            #expect(try await paramd.stop() == .exited(0))
            return recording
        } measure: { (timeline: FrameTimeline) -> Coverage<(Int64, Int64)> in
            guard let cue = player?.frames["01:00:02:00"] else { return .tooLittle("the tool did not play 01:00:02:00") }
            guard let first = timeline.firstChange(0, leaving: 1, from: cue - 4800) else { return .tooLittle("the cue fell in a gap") }
            return .enough((cue, first.first))
        }
        guard let ((cue, first), _) = found else { return }
        TestLog.write("MTC 25 fps: 01:00:02:00's piece 0 on frame \(cue), the cue on \(first) (\(first - cue) samples)")
        #expect(abs(first - cue) <= 48, "within 1 ms: \(first - cue) samples")
    }

    @Test func badTimecodesAndCuesAreRefused() async throws {
        let server = try JackServer.required()
        let (paramd, _) = try await ParamdProcess.start(server: server, name: "paramd-tc-bad",
                                                        config: "timecode = \"ltc\"\ntimecode-fps = \"25\"\n" + Self.cutoff)
        let client = try OSCClient(port: paramd.port)
        for (args, reason) in [([OSCArgument.string("1:00:00:00"), .string("/cutoff"), .float32(0)], "malformed timecode"),
                               ([.string("01:00:00:25"), .string("/cutoff"), .float32(0)], "frame 25 out of range 00...24 at 25 fps"),
                               ([.string("24:00:00:00"), .string("/cutoff"), .float32(0)], "hour 24 out of range"),
                               ([.string("01:00:61:00"), .string("/cutoff"), .float32(0)], "second 61 out of range"),
                               ([.string("01:00:00:00"), .string("/nowhere")], "unknown address /nowhere"),
                               ([.string("01:00:00:00"), .string("/cutoff"), .float32(2), .string("bogus")], "/cutoff"),
                               ([.string("01:00:00:00")], "expects a timecode")] {
            let reply = try await client.request("/at", args, reply: "/error")
            if case .string(let text)? = reply?.arguments.last { #expect(text.contains(reason), "\(args): \(text)") } else { Issue.record("no /error for \(args)") }
        }
        let error = try await client.request("/at/delete", [.string("99")], reply: "/error")
        #expect(error?.arguments.last == .string("no cue 99"))
        #expect(try await client.request("/at", [.string("01:00:01:00"), .string("/cutoff"), .float32(0.5)], reply: "/at") != nil)
        try client.send("/at/list")
        let list = await client.receive(until: "/at/list/end") ?? []
        #expect(list == [OSCMessage("/at", [.string("1"), .string("01:00:01:00"), .string("/cutoff")]), OSCMessage("/at/list/end", [.int32(1)])])
        #expect(try await paramd.stop() == .exited(0))

        for (config, key) in [("timecode = \"smpte\"\n", "'timecode': must be ltc, mtc or off"),
                              ("timecode-fps = \"60\"\n", "'timecode-fps'"),
                              ("[[at]]\ntime = \"01:00:00:99\"\nmessage = [\"/volume\", 0]\n", ":2: 'at[1].time'"),
                              ("[[at]]\ntime = \"01:00:00:00\"\nmessage = [\"/nowhere\", 0]\n", ":3: 'at[1].message'")] {
            let home = TestHome("tc-config-\(key.count)")
            try home.writeConfig(config)
            let refused = try ChildProcess(try Binaries.paramd(), ["--server", server.name], environment: home.environment, label: "paramd-tc-config")
            #expect(try await refused.waitForExit(timeout: .seconds(30)) == .exited(78))
            #expect(refused.standardError.contains(key), "\(config): \(refused.standardError)")
        }
    }
}

/// The parts of `locatesJoinFadesFireAgainAndADropoutFreewheels`, each judged on its own recording.
private enum LocatePart: CaseIterable, CustomStringConvertible {
    case join, nineTen, ten, dropout
    var description: String {
        switch self {
        case .join: "the join at 12:00"
        case .nineTen: "the cue at 09:10 again"
        case .ten: "the fade at 10:00 again"
        case .dropout: "the cue in the dropout"
        }
    }
}

/// Where a part expected its change (a JACK frame) and where out_1 or cv_cutoff made it.
private struct LocateReading {
    var expected: Int64
    var got: Int64
    /// The join: the fade's largest difference over the second after it.
    var worst = 0.0
    /// The dropout: paramd's `tc_locked 0` lines.
    var lockLostLines: [String] = []
}
