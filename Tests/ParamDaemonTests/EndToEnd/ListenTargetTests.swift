import Foundation
import ParamCore
import Testing

/// SPEC §13's last point over OSCQuery's WebSocket: LISTEN streams `/<param>/target f` whenever
/// a parameter's target changes, whoever changed it. The client is the `websockets` library
/// (Tests/Support/oscquery/wsclient.py); the other controller is liblo's `oscsend` over UDP.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ListenTargetTests {
    @Test func aTargetSetByAnotherControllerIsStreamedAtOnce() async throws {
        let server = try JackServer.required()
        let (paramd, http) = try await OSCQueryEndToEndTests.start("paramd-ws-target", server: server)
        let r = try #require(try await OSCQueryEndToEndTests.python("wsclient.py", [
            "targets", "ws://127.0.0.1:\(http)/", "--osc-port", "\(paramd.port)"]) as? [String: Any])
        #expect(try await paramd.stop() == .exited(0))

        #expect((r["initial"] as? [[Any]])?.last?[0] as? String == "/frequency", "the value once, at LISTEN: \(r)")
        let afterSend = try #require(r["after_send"] as? [[Any]])
        let target = try #require(afterSend.last)
        TestLog.write("LISTEN /frequency, oscsend /frequency ffs 880 3 easeInOutCubic: \(afterSend)")
        #expect(target[1] as? String == "/frequency/target", "\(afterSend)")
        #expect((target[2] as? [Double]) == [880])
        // Timed from before oscsend was started (a process of its own), so this bounds the delay from above.
        #expect((target[0] as? Double ?? 1) <= 0.1, "/frequency/target within 100 ms of the send: \(target)")
        #expect(!afterSend.contains { $0[1] as? String == "/frequency/done" }, "the target comes before the glide ends")

        // A stop is a change of target too: to the value it froze at, which /get then confirms.
        let afterStop = try #require(r["after_stop"] as? [[Any]])
        let stopTargets = afterStop.filter { $0[0] as? String == "/frequency/target" }.compactMap { ($0[1] as? [Double])?.first }
        TestLog.write("after /frequency/stop: \(afterStop)")
        let frozen = try #require(stopTargets.last, "a target after the stop: \(afterStop)")
        #expect(frozen > 440 && frozen < 880, "frozen mid-glide: \(frozen)")
        let get = try #require(r["get"] as? [[Any]])
        #expect(get.map { $0[0] as? String } == ["/frequency", "/frequency/target"])
        #expect((get.last?[1] as? [Double])?.first == frozen, "the last target streamed is paramd's: \(get)")
    }

    /// A target set on the audio side, by a MIDI controller (cc 7 → volume), reaches LISTEN too.
    @Test func aTargetSetByMIDIIsStreamed() async throws {
        let server = try JackServer.required()
        let home = try TestHome.volumeOnCC7("ws-target-midi", "channel = 1")
        let (paramd, http) = try await OSCQueryEndToEndTests.start("paramd-ws-midi", server: server, environment: home.environment)
        let listener = try ChildProcess("python3", ["\(OSCQueryEndToEndTests.scripts)/wsclient.py", "hold", "ws://127.0.0.1:\(http)/", "/volume", "3"],
                                        label: "wsclient-hold")
        try await listener.waitForLine(exactly: "listening", on: .stdout)
        let sender = try await JackTool.midi(server: server, connect: ["paramd-ws-midi:midi_in"], send: [(10, 0, [0xB0, 7, 64])])
        try await sender.waitUntilSent()
        #expect(try await listener.waitForExit(timeout: .seconds(20)) == .exited(0), "\(listener.outputSummary())")
        _ = try await sender.stop()
        #expect(try await paramd.stop() == .exited(0))
        let last = listener.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let heard = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])["while_idle"] as? [[Any]]
        let targets = (heard ?? []).filter { $0[0] as? String == "/volume/target" }.compactMap { ($0[1] as? [Double])?.first }
        TestLog.write("LISTEN /volume, cc 7 = 64: \((heard ?? []).filter { ($0[0] as? String) != "/volume" })")
        #expect(targets.map(Float.init) == [Float(64.0 / 127)], "one /volume/target, the mapped value: \(heard ?? [])")
    }
}
