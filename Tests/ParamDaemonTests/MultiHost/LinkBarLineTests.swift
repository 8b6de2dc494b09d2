import Foundation
import ParamCore
import Testing

/// SPEC §14, quantized starts with Link: two paramd instances, each on its own JACK server in
/// its own NetworkLab host, join one Link session with an aalink peer in a third host (a peer
/// paramd's code did not write). Each gets `quantize 1m` fades, sent at chosen points of the
/// peer's bar; the recordings of the two out_1 ports, placed on their servers' clocks, must
/// start on the same bar line within 1 ms, a whole bar apart when sent either side of a bar
/// line, each on the first frame at or after the bar line of paramd's own Link timeline (its
/// `/status beat`), that timeline where a Link peer on paramd's bridge without JACK (a fourth
/// host) has it, and near the aalink peer's bar line, with out_1's output latency counted.
/// The harness: Tests/README.md, "LinkBarLineTests".
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct LinkBarLineTests {
    static let rate = 48000
    static let period = 256
    static let tempo = 150
    static let beatsPerBar = 4
    /// SPEC §14: "within 1 ms of each other".
    static let limitMicros = 1000.0
    /// How far a start may be from the aalink peer's bar line. Every peer on Debian's Link here
    /// (both paramds, and paramd-linkprobe without JACK) stood 0.8 to 3.7 ms from aalink's
    /// timeline, alike within microseconds: an offset between the two Link builds that Link
    /// measures once at a join and again every 30 s, not paramd's. 5 ms still catches an output
    /// latency left out (512 frames, 10.7 ms) or a phase ignored (hundreds of ms).
    static let peerToleranceMicros = 5000.0
    /// How far paramd's own Link timeline may be from the bridge peer's: the probe's beat is
    /// read between two readings of Link's clock (a few µs apart), and paramd's `/status
    /// beat_frame` is placed to a frame; seen within 11 µs.
    static let bridgeLimitMicros = 100.0

    /// A `quantize 1m` fade to `value` sent to rig `rig` at `atBars` bars after a bar line.
    struct Cue {
        let rig: Int
        let value: Float
        let atBars: Double
    }

    /// a and b in one bar (both start on the next bar line), then a just before a bar line and
    /// b just after it (b starts a bar after a). Each far enough from a line that sending it
    /// (a python3 in the namespace) and paramd's next period cannot carry it across.
    static let cues = [
        Cue(rig: 0, value: 0.5, atBars: 0.25), Cue(rig: 1, value: 0.5, atBars: 0.55),
        Cue(rig: 0, value: 1, atBars: 1.6), Cue(rig: 1, value: 1, atBars: 2.2),
    ]

    @Test func twoParamdsOnTwoJackServersStartOnTheSameLinkBarLine() async throws {
        for attempt in 1...2 {
            if try await NetworkLab.with(hosts: 4, { lab in try await Self.run(attempt, in: lab) }) { return }
        }
        Issue.record("Link bar line: every attempt was inconclusive (see the log)")
    }

    /// One attempt: true when it judged, false when the recordings or the sends left it
    /// unable to (a start in a recording gap, a send that took long enough to cross a line).
    static func run(_ attempt: Int, in lab: NetworkLab) async throws -> Bool {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        let peerInput = try CommandPipe(label: "link-peer-bar")
        let peer = try lab.spawn(in: lab.hosts[2], peerInput.command(["python3", script, "\(tempo)"]), label: "link-peer")
        let bridgeInput = try CommandPipe(label: "linkprobe-bar")
        var bridge: ChildProcess? = nil
        var rigs: [LinkHostRig] = []
        do {
            try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
            let config = "link = true\ntempo = \(tempo)\nbeats-per-bar = \(beatsPerBar)\n"
            for (i, label) in ["a", "b"].enumerated() {
                rigs.append(try await LinkHostRig.start(lab, on: lab.hosts[i], label: label, rate: rate, period: period, config: config))
            }
            try await peer.waitForLine(exactly: "peers 2", timeout: .seconds(20))
            for rig in rigs { try await waitUntilLinked(rig, in: lab) }
            // A fourth peer on paramd's Link bridge without JACK: where Debian's Link puts the
            // session's timeline, apart from anything paramd's audio side does.
            let probe = try lab.spawn(in: lab.hosts[3], bridgeInput.command([try Binaries.path(of: "paramd-linkprobe")]),
                                      label: "linkprobe")
            bridge = probe
            try await probe.waitForLine(exactly: "peers 3", timeout: .seconds(20))

            try await rigs[0].recorder.record(seconds: 0.2)
            try peerInput.send("status")
            let line = try await peer.waitForLine(describedAs: "the peer's status") { $0.hasPrefix("status peers") }
            let link = try #require(LinkBeatTimeline(statusLine: line, quantum: Double(beatsPerBar)), "\(line)")
            let bar = link.barMicros
            let firstLine = link.barLine(atOrAfter: RawClock.nowMicros() + 0.1 * bar)
            TestLog.write("Link bar line, attempt \(attempt): the peer's timeline \(link); out_1 latency a \(rigs[0].outputLatencyFrames), b \(rigs[1].outputLatencyFrames) frames")

            var expected: [Double?] = []
            for cue in cues {
                try await rigs[0].recordUntil(rawMicros: firstLine + cue.atBars * bar)
                let before = RawClock.nowMicros()
                let fade = OSCMessage("/volume", [.float32(cue.value), .float32(0.05), .string("linear"), .string("quantize"), .string("1m")])
                _ = try await lab.exchange(in: rigs[cue.rig].host, port: 9000, [.message(fade)], listen: 0)
                // The line the command finds: the first at or after the frames paramd renders
                // when it takes it, heard an output latency later.
                let reach = Double(2 * period + rigs[cue.rig].outputLatencyFrames) * 1e6 / Double(rate)
                let earliest = link.barLine(atOrAfter: before), latest = link.barLine(atOrAfter: RawClock.nowMicros() + reach)
                expected.append(abs(earliest - latest) < 1 ? earliest : nil)
            }
            for rig in rigs { try await rig.recordUntil(rawMicros: firstLine + 3.3 * bar) }
            var anchors: [(beat: Double, frame: Int64)?] = []
            for rig in rigs {
                let s = try await lab.status(in: rig.host, port: 9000)
                if case .float32(let beat)? = s?["beat"], case .int64(let frame)? = s?["beat_frame"] {
                    anchors.append((Double(beat), frame))
                } else {
                    anchors.append(nil)
                }
            }
            try await rigs[0].recorder.record(seconds: 0.1)  // so that each beat_frame is recorded
            let bridgeOffset = try await Self.bridgeOffset(bridgeInput, probe, link: link)
            try bridgeInput.send("quit")
            _ = try await probe.waitForExit()
            let latencies = rigs.map(\.outputLatencyFrames)
            var recordings: [Recording] = []
            for rig in rigs { recordings.append(try await rig.finish()) }
            rigs = []
            try peerInput.send("quit")
            _ = try await peer.waitForExit(timeout: .seconds(20))

            guard expected.allSatisfy({ $0 != nil }) else {
                TestLog.write("Link bar line, attempt \(attempt): a send took long enough to cross a bar line")
                return false
            }
            return judge(recordings.map(FrameTimeline.init), anchors: anchors, link: link, bridgeOffset: bridgeOffset,
                         expected: expected.map { $0! }, latencies: latencies, attempt: attempt)
        } catch {
            for rig in rigs { await rig.abandon() }
            try? bridgeInput.send("quit")
            _ = try? await bridge?.waitForExit()
            try? peerInput.send("quit")
            _ = try? await peer.waitForExit(timeout: .seconds(20))
            throw error
        }
    }

    /// How far (µs, signed) the bridge peer's beat is from the aalink peer's: its `status` beat
    /// between two readings of Link's clock (`clocks`), the narrowest of three brackets.
    static func bridgeOffset(_ input: CommandPipe, _ probe: ChildProcess, link: LinkBeatTimeline) async throws -> (micros: Double, bracket: Double) {
        var best: (micros: Double, bracket: Double)? = nil
        for k in 1...3 {
            for command in ["clocks", "status", "clocks"] { try input.send(command) }
            try await probe.waitForLine(describedAs: "\(2 * k) clocks lines") { _ in
                probe.standardOutput.components(separatedBy: "clocks monotonic_before").count - 1 >= 2 * k
            }
            let lines = probe.standardOutput.split(separator: "\n").map(String.init)
            let clocks = lines.filter { $0.hasPrefix("clocks ") }.suffix(2).compactMap { LinkPeerTests.field("link", of: $0) }
            guard clocks.count == 2, let status = lines.last(where: { $0.hasPrefix("status peers") }),
                  let beat = LinkPeerTests.field("beat", of: status) else { continue }
            let beats = beat - link.beat(atMicros: (clocks[0] + clocks[1]) / 2)
            let reading = ((beats / link.quantum - (beats / link.quantum).rounded()) * link.barMicros, clocks[1] - clocks[0])
            if best == nil || reading.1 < best!.bracket { best = reading }
        }
        return try #require(best, "no status between two clocks lines from paramd-linkprobe:\n\(probe.outputSummary())")
    }

    /// Polls `/status` until paramd is on Link's timeline with both other peers, at the tempo.
    static func waitUntilLinked(_ rig: LinkHostRig, in lab: NetworkLab) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var last: [String: OSCArgument]? = nil
        while ContinuousClock.now < deadline {
            last = try await lab.status(in: rig.host, port: 9000)
            if let s = last, s["timeline"] == .string("link"), s["link_peers"] == .int32(2) {
                guard case .float32(let bpm)? = s["tempo"] else { break }
                #expect(abs(Double(bpm) - Double(tempo)) < 0.01, "\(rig.paramd.name): /status tempo \(bpm)")
                return
            }
        }
        throw NetworkLabError(description: "\(rig.paramd.name) not on Link's timeline with 2 peers within 20 s: /status \(last.map { "\($0)" } ?? "none")\n\(rig.paramd.process.outputSummary())")
    }
}
