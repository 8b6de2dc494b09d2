import Foundation
import ParamCore
import Testing

/// SPEC §4.4: `/<param>/stop` and `/stop` freeze at the sounding value; the target becomes that
/// value; the animation in flight ends with `finished` 0. And `/<param>/default` over UDP.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct StopEndToEndTests {
    @Test func stopFreezesTheValueMakesItTheTargetAndEndsWithDoneZero() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-stop")
        let client = try OSCClient(port: paramd.port)
        try client.send("/subscribe", [.string("/volume")])
        _ = await client.receive(until: "/volume")
        try client.send("/volume", [.float32(0), .float32(2), .string("linear"), .string("id"), .int32(11)])
        // Stopped once it is about a quarter of the way down, as its values say.
        while let m = await client.receive(until: "/volume"), (m.last?.firstFloat ?? 0) > 0.8 {}
        try client.send("/volume/stop")
        let ended = await client.receive(until: "/volume/done")
        #expect(ended?.last == OSCMessage("/volume/done", [.int32(0), .int32(11)]))
        guard let frozen = ended?.dropLast().last?.firstFloat else { Issue.record("no final value"); return }
        #expect(frozen > 0.6 && frozen < 0.85, "about a quarter of the way down: \(frozen)")
        try await client.waitForValue("volume") { value, _ in value == frozen }
        let value = try await client.request("/volume/get", reply: "/volume")
        let target = await client.receive()
        #expect(value?.firstFloat == frozen)
        #expect(target == OSCMessage("/volume/target", [.float32(frozen)]))
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aDefaultActionSetOverOSCTimesTheNextBareMessage() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-default")
        let client = try OSCClient(port: paramd.port)
        try client.send("/subscribe", [.string("/pan"), .float32(0)])
        _ = await client.receive(until: "/pan")
        try client.send("/pan/default", [.float32(0.5), .string("linear")])
        let started = ContinuousClock.now
        try client.send("/pan", [.float32(1)])
        _ = await client.receive(until: "/pan/done")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed > .milliseconds(450) && elapsed < .milliseconds(1500), "took \(elapsed)")
        #expect(try await paramd.stop() == .exited(0))
    }
}
