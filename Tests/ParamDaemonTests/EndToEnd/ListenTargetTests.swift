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
}
