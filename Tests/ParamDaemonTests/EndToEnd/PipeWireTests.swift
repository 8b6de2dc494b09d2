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

    @Test func aLinearFadeStaysOnJacksFramesThroughQuantumChanges() async throws {
        let pipewire = try await PipeWireServer.start(quantum: 256)
        let name = "paramd-pw"
        let port = try freeUDPPort()
        let home = TestDirectory.file("home-\(name)")
        var environment = pipewire.environment
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["XDG_STATE_HOME"] = home + "/state"
        let paramd = try ChildProcess(try Binaries.paramd(),
                                      ["--server", PipeWireServer.remoteName, "--name", name, "--port", "\(port)", "--http-port", "0"],
                                      environment: environment, label: name)
        try await paramd.waitForLine(containing: "ready:", on: .stderr)
        let feeder = try await JackTool.feed(serverName: PipeWireServer.remoteName, name: "feeder-pw", connect: ["\(name):in_1"], value: 1,
                                             environment: pipewire.environment)
        let recorder = try await JackTool.record(serverName: PipeWireServer.remoteName, name: "rec-pw", connect: ["\(name):out_1"],
                                                 seconds: 20, environment: pipewire.environment)
        let status = try #require(try await OSCClient(port: port).request("/status", reply: "/status")).statusPairs
        #expect(status["server"] == .string("pipewire"))
        try await oscsend(port, "/volume", "ff", "1", "0")
        try await recorder.record(seconds: 0.3)
        try await oscsend(port, "/volume", "ffs", "0", "2", "linear")
        let quanta = [1024, 128, 64, 256]
        for quantum in quanta {  // in the middle of the fade
            try await recorder.record(seconds: 0.35)
            try await pipewire.forceQuantum(quantum)
        }
        try await recorder.record(seconds: 1.5)
        let recording = try await recorder.stop()
        try await feeder.stop()
        _ = try await paramd.stop(signal: SIGTERM)
        try await pipewire.stop()

        let values = Self.byFrame(recording)
        let frames = values.keys.sorted()
        let n = 96000
        let full = try #require(frames.first { values[$0] == 1 }, "volume never reached 1")
        let first = try #require(frames.first { $0 > full && values[$0]! < 1 }, "no fade")
        let s = first - 1  // curve(0) = 1 sounds at the start frame itself
        var worst = 0.0, compared = 0
        for f in frames where f >= s && f < s + Int64(n) {
            worst = max(worst, abs(Double(values[f]!) - (1 - Double(f - s) / Double(n))))
            compared += 1
        }
        var lengths: [Int] = []
        for p in recording.metadata.periods where lengths.last != Int(p[2]) { lengths.append(Int(p[2])) }
        TestLog.write("PipeWire fade across quanta \(lengths) from JACK frame \(s): \(compared) of \(n) frames compared, worst \(worst)")
        #expect(lengths == [256] + quanta, "the quanta the recorder ran")
        #expect(compared >= n * 9 / 10, "\(compared) of \(n) frames placed")
        #expect(worst < 1e-7, "worst difference \(worst)")
    }
}
