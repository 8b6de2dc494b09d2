import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd on PipeWire's JACK (a private PipeWire, `PipeWireServer`): SPEC §5 by JACK frame
/// while the quantum changes under a running animation.
@Suite(.serialized)
struct PipeWireTests {
    /// The samples of channel 0 by JACK frame. PipeWire's counter is a period's first frame;
    /// a period whose stamp does not follow on from the last, and the one after it (where
    /// paramd's skip lands), are left out, as FrameTimeline sets aside a gap's periods.
    static func byFrame(_ recording: Recording) -> [Int64: Float] {
        let periods = recording.metadata.periods
        var values: [Int64: Float] = [:]
        var sample = 0
        var frame: Int64 = 0
        var asideUntil = -1
        for (i, p) in periods.enumerated() {
            let length = Int(p[2])
            if i > 0 {
                let step = Int64(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: p[0]) &- UInt32(truncatingIfNeeded: periods[i - 1][0])))
                frame += step
                if step != Int64(periods[i - 1][2]) { asideUntil = i + 1 }
            }
            if i > asideUntil {
                for k in 0..<min(length, recording.frames - sample) { values[frame + Int64(k)] = recording.channels[0][sample + k] }
            }
            sample += length
        }
        return values
    }

    /// paramd (with `config`) on a fresh private PipeWire at 256 frames, DC 1 into in_1, its
    /// port `record` recorded: 0.3 s, then `commands` (oscsend's arguments), then each quantum
    /// forced after its recorded seconds, then `tail` seconds more. Also /status's `server`.
    static func recordThroughQuantumChanges(_ label: String, config: String = "", record: String, commands: [[String]],
                                            quanta: [(seconds: Double, frames: Int)], tail: Double) async throws -> (Recording, OSCArgument?) {
        let pipewire = try await PipeWireServer.start(quantum: 256)
        let name = "paramd-\(label)"
        let port = try freeUDPPort()
        let home = TestHome(name)
        try home.writeConfig(config)
        let paramd = try ChildProcess(try Binaries.paramd(),
                                      ["--server", PipeWireServer.remoteName, "--name", name, "--port", "\(port)", "--http-port", "0"],
                                      environment: pipewire.environment.merging(home.environment) { $1 }, label: name)
        try await paramd.waitForLine(containing: "ready:", on: .stderr)
        let feeder = try await JackTool.feed(serverName: PipeWireServer.remoteName, name: "feeder-\(label)", connect: ["\(name):in_1"], value: 1,
                                             environment: pipewire.environment)
        let recorder = try await JackTool.record(serverName: PipeWireServer.remoteName, name: "rec-\(label)", connect: ["\(name):\(record)"],
                                                 seconds: 20, environment: pipewire.environment)
        let status = try #require(try await OSCClient(port: port).request("/status", reply: "/status")).statusPairs
        try await recorder.record(seconds: 0.3)
        for command in commands {
            let sender = try ChildProcess("/usr/bin/oscsend", ["localhost", "\(port)"] + command, label: "oscsend")
            #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0), "oscsend \(command)")
        }
        for change in quanta {  // in the middle of the animation
            try await recorder.record(seconds: change.seconds)
            try await pipewire.forceQuantum(change.frames)
        }
        try await recorder.record(seconds: tail)
        let recording = try await recorder.stop()
        try await feeder.stop()
        _ = try await paramd.stop(signal: SIGTERM)
        try await pipewire.stop()
        return (recording, status["server"])
    }

    /// The period lengths the recorder ran, each change once.
    static func lengths(_ recording: Recording) -> [Int] {
        var lengths: [Int] = []
        for p in recording.metadata.periods where lengths.last != Int(p[2]) { lengths.append(Int(p[2])) }
        return lengths
    }

    @Test func aLinearFadeStaysOnJacksFramesThroughQuantumChanges() async throws {
        let quanta = [1024, 128, 64, 256]
        let (recording, server) = try await Self.recordThroughQuantumChanges(
            "pw-fade", config: "", record: "out_1", commands: [["/volume", "ff", "1", "0"], ["/volume", "ffs", "0", "2", "linear"]],
            quanta: quanta.map { (0.35, $0) }, tail: 1.5)
        #expect(server == .string("pipewire"))
        let values = Self.byFrame(recording)
        let frames = values.keys.sorted()
        let n = 96000
        // Volume 1 at once, then the fade: its start is the first frame below 1 after 1.
        let full = try #require(frames.first { values[$0] == 1 }, "volume never reached 1")
        let first = try #require(frames.first { $0 > full && values[$0]! < 1 }, "no fade")
        let s = first - 1  // curve(0) sounds at the start frame itself
        var worst = 0.0, compared = 0
        for f in frames where f >= s && f < s + Int64(n) {
            worst = max(worst, abs(Double(values[f]!) - (1 - Double(f - s) / Double(n))))
            compared += 1
        }
        let lengths = Self.lengths(recording)
        TestLog.write("PipeWire fade across quanta \(lengths) from JACK frame \(s): \(compared) of \(n) frames compared, worst \(worst)")
        #expect(lengths == [256] + quanta, "the quanta the recorder ran")
        #expect(compared >= n * 9 / 10, "\(compared) of \(n) frames placed")
        #expect(worst < 1e-7, "worst difference \(worst)")
    }

    @Test func aLogCutoffGlideOnItsCVPortStaysOnJacksFramesThroughQuantumChanges() async throws {
        let config = "[cutoff]\nmin = 20\nmax = 20000\ninitial = 1000\nunit = \"Hz\"\ndomain = \"log\"\ncv = true\n"
        let (recording, _) = try await Self.recordThroughQuantumChanges(
            "pw-cv", config: config, record: "cv_cutoff", commands: [["/cutoff", "ffs", "5000", "2", "easeInEaseOut"]],
            quanta: [(0.7, 1024), (0.6, 128)], tail: 1.2)
        let n = 96000
        func expected(_ k: Int64) -> Double {
            let eased = k <= 0 ? 0 : k >= n ? 1 : referenceBezier(0.42, 0, 0.58, 1, Double(k) / Double(n))
            return Foundation.exp(Foundation.log(1000.0) + (Foundation.log(5000.0) - Foundation.log(1000.0)) * eased)
        }
        let values = Self.byFrame(recording)
        let frames = values.keys.sorted()
        func compare(from s: Int64) -> (worst: Double, compared: Int) {
            var worst = 0.0, compared = 0
            for f in frames where f >= s - 100 && f < s + Int64(n) + 1000 {
                let e = expected(f - s)
                worst = max(worst, abs(Double(values[f]!) - e) / e)
                compared += 1
            }
            return (worst, compared)
        }
        // The start from the middle (progress ½ sounds √(1000·5000)), as DeclaredParameterTests.
        let middle = try #require(frames.first { Double(values[$0]!) >= 2236.0679 }, "no middle of the glide")
        let s = ((middle - Int64(n / 2) - 8)...(middle - Int64(n / 2) + 8)).min { compare(from: $0).worst < compare(from: $1).worst }!
        let (worst, compared) = compare(from: s)
        let lengths = Self.lengths(recording)
        TestLog.write("PipeWire cv_cutoff glide across quanta \(lengths) from JACK frame \(s): \(compared) frames compared, worst relative \(worst)")
        #expect(lengths == [256, 1024, 128], "the quanta the recorder ran")
        #expect(compared >= (n + 1100) * 9 / 10, "\(compared) frames placed")
        #expect(worst < 2e-5, "worst relative difference \(worst)")
    }
}
