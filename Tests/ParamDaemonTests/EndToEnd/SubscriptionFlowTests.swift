import Foundation
import ParamCore
import Testing

/// SPEC §4.5 over real UDP: subscribe, a snapshot, throttled values while a parameter moves,
/// the exact final value, then `/done`.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct SubscriptionFlowTests {
    @Test func aSubscriberGetsASnapshotThrottledValuesTheFinalValueAndDone() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-sub")
        let client = try OSCClient(port: paramd.port)

        try client.send("/subscribe")
        let snapshot = await client.receive(until: "/morph")
        #expect(snapshot?.first == OSCMessage("/subscribed", [.string("/*"), .float32(60)]))
        #expect(snapshot?.dropFirst().map(\.address) == ["/volume", "/tone", "/frequency", "/pan", "/input", "/morph"])
        #expect(snapshot?[3].firstFloat == 440)

        let started = ContinuousClock.now
        try client.send("/tone", [.float32(0.5), .float32(1), .string("linear"), .string("id"), .int32(5)])
        guard let flow = await client.receive(until: "/tone/done", timeout: .seconds(5)) else {
            Issue.record("no /tone/done")
            return
        }
        let elapsed = ContinuousClock.now - started
        let values = flow.dropLast().compactMap(\.firstFloat)
        #expect(flow.allSatisfy { $0.address.hasPrefix("/tone") })
        #expect(flow.last == OSCMessage("/tone/done", [.int32(1), .int32(5)]))
        #expect(values.last == 0.5, "the exact final value right before done")
        // At most 60 per second over about one second (plus the final value).
        #expect(values.count >= 20 && values.count <= 63, "\(values.count) updates in \(elapsed)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 || ($0 == $1 && $1 == 0.5) }, "rising, never the same twice except the final repeat")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func anInterruptedAnimationEndsWithDoneZero() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-int")
        let client = try OSCClient(port: paramd.port)
        try client.send("/subscribe", [.string("/pan")])
        _ = await client.receive(until: "/pan")
        try client.send("/pan", [.float32(1), .float32(2)])
        _ = await client.receive(until: "/pan")  // under way: its first value has arrived
        try client.send("/pan", [.float32(-1), .float32(0.1)])
        let flow = await client.receive(until: "/pan/done")
        #expect(flow?.last == OSCMessage("/pan/done", [.int32(0)]))
        let second = await client.receive(until: "/pan/done")
        #expect(second?.last == OSCMessage("/pan/done", [.int32(1)]))
        #expect(second?.dropLast().last == OSCMessage("/pan", [.float32(-1)]))
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func oscsendCanSubscribeAListenerThroughItsPort() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-port")
        let listenerSocket = try UDPSocket(.ipv4)
        let listener = OSCClient(port: paramd.port, socket: listenerSocket)
        try await oscsend(paramd.port, "/subscribe", "sii", "/freq*", "60", "\(listenerSocket.port)")
        guard let m = await listener.receive(timeout: .seconds(3)) else {
            Issue.record("the listener got nothing")
            return
        }
        #expect(m == OSCMessage("/subscribed", [.string("/freq*"), .float32(60)]))
        try await oscsend(paramd.port, "/frequency", "ff", "880", "0")
        var seen: [OSCMessage] = []
        while let x = await listener.receive(timeout: .seconds(3)) {
            seen.append(x)
            if x.address == "/frequency/done" { break }
        }
        #expect(seen.first == OSCMessage("/frequency", [.float32(440)]), "the snapshot")
        #expect(seen.suffix(2) == [OSCMessage("/frequency", [.float32(880)]), OSCMessage("/frequency/done", [.int32(1)])])
        // Ending it from another one-shot sender, naming the same port.
        try await oscsend(paramd.port, "/unsubscribe", "si", "/freq*", "\(listenerSocket.port)")
        try await OSCClient(port: paramd.port).waitForStatus("subscribers") { $0 == 0 }
        try await oscsend(paramd.port, "/frequency", "ff", "220", "0")
        #expect(await listenerSocket.receive(timeout: .milliseconds(500)) == nil)
        #expect(try await paramd.stop() == .exited(0))
    }
}
