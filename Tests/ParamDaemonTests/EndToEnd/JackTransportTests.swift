import Foundation
import ParamCore
import Testing

/// SPEC §14 `transport = "jack"` on a private jackd at 48 kHz with a timebase master paramd's
/// code did not write (PyPI's JACK-Client: Tests/Support/jack-timebase-master.py) at 100 BPM in
/// 3/4 with 1920 whole ticks a beat (a tick is 15 frames). The master's beat at any JACK frame is
/// known from one of its own readings (its transport frame at a period's first frame); paramd's
/// `/status beat` and `beat_frame`, and a `quantize 1m` start in the recording of out_1, are
/// put on that line.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct JackTransportTests {
    static let beatsPerFrame = 100.0 / (60 * 48000)

    /// The master's timeline on JACK's frames (the recording's: a period stamped S holds the
    /// frames S − period ..< S, and its first is the master's transport frame T).
    struct MasterLine {
        let stamp: Int64, period: Int64, transportFrame: Int64
        func beat(at jackFrame: Int64) -> Double {
            Double(transportFrame + jackFrame - (stamp - period)) * JackTransportTests.beatsPerFrame
        }
        /// JACK's frame counter less the transport frame. JACK2 lets the two slip by a period
        /// when cycles run late (measured under xruns: three slips of 256 frames in 20 s), and
        /// paramd follows the transport; a line is good only while this holds.
        var slip: Int64 { stamp - period - transportFrame }

        /// From the master's `status N` reply, while the transport rolls.
        init?(status: String) {
            guard let s = JackTransportTests.field("stamp", of: status), let p = JackTransportTests.field("period", of: status),
                  let t = JackTransportTests.field("frame", of: status), JackTransportTests.field("rolling", of: status) == 1 else { return nil }
            (stamp, period, transportFrame) = (s, p, t)
        }
    }

    static func field(_ key: String, of line: String) -> Int64? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(where: { $0 == key }), index + 1 < words.count else { return nil }
        return Int64(words[index + 1])
    }

    static func timeline(_ client: OSCClient) async throws -> (name: String, beat: Double, frame: Int64, tempo: Double)? {
        guard let s = try await client.request("/status", reply: "/status")?.statusPairs,
              case .string(let name)? = s["timeline"], case .float32(let beat)? = s["beat"],
              case .int64(let frame)? = s["beat_frame"], case .float32(let tempo)? = s["tempo"] else { return nil }
        return (name, Double(beat), frame, Double(tempo))
    }

    @Test func paramdFollowsATimebaseMastersBBTAndFallsBackOnceWhenItStopsOrGoes() async throws {
        let server = try JackServer.required()
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/jack-timebase-master.py").path
        let fallback = "paramd falls back to its own timeline"
        var following: (name: String, beat: Double, frame: Int64, tempo: Double)?
        var afterStop: (name: String, beat: Double, frame: Int64, tempo: Double)?
        var line: MasterLine?, lineBeforeStop: MasterLine?
        var tempoError: OSCMessage?
        var log = "", logAtStop = ""
        let found: (Int64, FrameTimeline)? = try await recordUntilCovered("quantize 1m on the master's bar line") {
            let rig = try await VolumeRig.start("paramd-transport", arguments: ["--transport", "jack"])
            let input = try CommandPipe(label: "timebase-master")
            let command = input.command(["python3", script, server.name, "100", "3", "1920"])
            let master = try ChildProcess(command[0], Array(command.dropFirst()), label: "timebase-master")
            try await master.waitForLine(exactly: "ready")
            try input.send("start")
            try await pollUntil("/status timeline is jack", timeout: .seconds(5)) {
                try await Self.timeline(rig.client)?.name == "jack"
            }
            try await rig.paramd.process.waitForLine(containing: "following the JACK transport's timebase master", on: .stderr)
            try await rig.recorder.record(seconds: 0.3)  // the whole ticks seen at several phases
            following = try await Self.timeline(rig.client)
            try input.send("status 1")
            line = MasterLine(status: try await master.waitForLine(containing: "status 1 "))
            tempoError = try await rig.client.request("/tempo", [.float32(90)], reply: "/error")
            try await oscsend(rig.paramd.port, "/volume", "ffsss", "0.5", "0.1", "linear", "quantize", "1m")
            try await rig.recorder.record(seconds: 2.2)
            try input.send("status 2")
            lineBeforeStop = MasterLine(status: try await master.waitForLine(containing: "status 2 "))
            try input.send("stop")
            try await pollUntil("/status timeline is internal", timeout: .seconds(5)) {
                try await Self.timeline(rig.client)?.name == "internal"
            }
            try await rig.paramd.process.waitForLine(containing: fallback, on: .stderr)
            try await rig.recorder.record(seconds: 0.5)
            afterStop = try await Self.timeline(rig.client)
            logAtStop = rig.paramd.process.standardError
            // Rolling again, then the master goes away: paramd follows again, then falls back.
            try input.send("start")
            try await pollUntil("/status timeline is jack again", timeout: .seconds(5)) {
                try await Self.timeline(rig.client)?.name == "jack"
            }
            try input.send("quit")
            #expect(try await master.waitForExit() == .exited(0))
            try await pollUntil("/status timeline is internal without a master", timeout: .seconds(5)) {
                try await Self.timeline(rig.client)?.name == "internal"
            }
            let recording = try await rig.finish()
            log = rig.paramd.process.standardError
            return recording
        } measure: { timeline in
            guard let start = timeline.firstChange(leaving: 1) else { return .tooLittle("no quantize 1m start") }
            if let a = line, let b = lineBeforeStop, a.slip != b.slip {
                return .tooLittle("JACK's transport frame slipped \(b.slip - a.slip) frames against its frame counter while rolling: no one line to judge by")
            }
            return .enough(start.last)
        }
        let master = try #require(line, "the master's status while rolling")
        let before = try #require(following), after = try #require(afterStop)
        guard let (start, timeline) = found else { return }
        let startBeat = master.beat(at: start)
        TestLog.write("master: stamp \(master.stamp) transport frame \(master.transportFrame); following: beat \(before.beat) at JACK frame \(before.frame) (master's \(master.beat(at: before.frame))); quantize 1m started on \(start), master's beat \(startBeat); after stop: beat \(after.beat) at \(after.frame) (the master's line \(master.beat(at: after.frame))); recording: \(timeline.description)")

        #expect(before.tempo == 100)
        let frame = Self.beatsPerFrame
        #expect(abs(before.beat - master.beat(at: before.frame)) <= frame, "paramd's beat is the master's, within a frame")
        let barOffset = startBeat - 3 * (startBeat / 3).rounded(.down)
        #expect(barOffset < 1.5 * frame, "starts within a frame after the master's bar line: \(barOffset / frame) frames")
        #expect(tempoError?.arguments.first == .string("/tempo"))
        #expect(tempoError?.arguments.last?.stringValue?.contains("timebase master") == true, "\(String(describing: tempoError))")
        // Stopped: paramd's own timeline runs on from the master's line at its last tempo.
        #expect(after.name == "internal" && after.tempo == 100)
        #expect(abs(after.beat - master.beat(at: after.frame)) <= frame, "the beat continues where the master's would")
        func count(_ text: String, in log: String) -> Int { log.components(separatedBy: text).count - 1 }
        #expect(count(fallback, in: logAtStop) == 1, "the fallback is logged once")
        #expect(count("the JACK transport stopped: \(fallback)", in: logAtStop) == 1)
        // Followed again, then the master gone: one more line each, saying why.
        #expect(count("following the JACK transport's timebase master", in: log) == 2)
        #expect(count(fallback, in: log) == 2)
        TestLog.write("the log's transport lines: \(log.split(separator: "\n").filter { $0.contains("JACK transport") })")
    }
}
