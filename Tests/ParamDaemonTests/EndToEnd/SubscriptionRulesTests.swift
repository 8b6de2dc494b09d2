import Foundation
import ParamCore
import Testing

/// SPEC §4.5 and §4.8 over real UDP: which parameters a pattern follows, the rate limit,
/// expiry and renewal, the cap, dropping a refusing subscriber, and feedback that can only
/// go to the sender's own host.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct SubscriptionRulesTests {
    @Test func patternsChooseTheParametersASubscriberFollows() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-pat")
        let volumes = try OSCClient(port: paramd.port)
        let panTone = try OSCClient(port: paramd.port)
        try volumes.send("/subscribe", [.string("/vol*")])
        try panTone.send("/subscribe", [.string("/{pan,tone}")])
        #expect(await volumes.receiveAll() == [OSCMessage("/subscribed", [.string("/vol*"), .float32(60)]),
                                               OSCMessage("/volume", [.float32(1)])])
        #expect(await panTone.receiveAll() == [OSCMessage("/subscribed", [.string("/{pan,tone}"), .float32(60)]),
                                               OSCMessage("/tone", [.float32(0)]), OSCMessage("/pan", [.float32(0)])])

        // Everything moves at once; each sees only its own.
        let client = try OSCClient(port: paramd.port)
        try client.send(.bundle(timeTag: 1, elements: ParameterID.builtIns.map { p in
            .message(OSCMessage("/\(ParameterSpec.builtIns[p.index].name)", [.float32(Float(p == .frequency ? 660 : 0.5)), .float32(0.3)]))
        }))
        let seenByVolumes = await volumes.receiveAll()
        let seenByPanTone = await panTone.receiveAll()
        #expect(Set(seenByVolumes.map(\.address)) == ["/volume", "/volume/done"])
        #expect(Set(seenByPanTone.map(\.address)) == ["/pan", "/pan/done", "/tone", "/tone/done"])
        #expect(seenByVolumes.suffix(2) == [OSCMessage("/volume", [.float32(0.5)]), OSCMessage("/volume/done", [.int32(1)])])
        // A second pattern adds to the first.
        try volumes.send("/subscribe", [.string("/input")])
        #expect(await volumes.receiveAll().map(\.address) == ["/subscribed", "/input"])
        try client.send("/input", [.float32(0.25), .float32(0.1)])
        try client.send("/volume", [.float32(0.25), .float32(0.1)])
        #expect(Set(await volumes.receiveAll().map(\.address)) == ["/volume", "/volume/done", "/input", "/input/done"])
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func updatesComeAtMostRatePerSecondWhileAParameterMoves() async throws {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-rate")
        let rates: [Float] = [10, 25, 60, 0]
        let listeners = try rates.map { _ in try OSCClient(port: paramd.port) }
        for (listener, rate) in zip(listeners, rates) {
            try listener.send("/subscribe", [.string("/frequency"), .float32(rate)])
            _ = await listener.receive(until: "/frequency")
        }
        let seconds = 2.0
        let client = try OSCClient(port: paramd.port)
        try client.send("/frequency", [.float32(880), .float32(Float(seconds)), .string("linear")])
        // Every listener in parallel, with arrival times.
        let flows = await withTaskGroup(of: (Int, [(ContinuousClock.Instant, OSCMessage)]).self) { group in
            for (i, listener) in listeners.enumerated() {
                group.addTask {
                    var flow: [(ContinuousClock.Instant, OSCMessage)] = []
                    while let m = await listener.receive(timeout: .seconds(5)) {
                        flow.append((ContinuousClock.now, m))
                        if m.address == "/frequency/done" { break }
                    }
                    return (i, flow)
                }
            }
            var all = [[(ContinuousClock.Instant, OSCMessage)]](repeating: [], count: rates.count)
            for await (i, flow) in group { all[i] = flow }
            return all
        }
        let periodsPerSecond = Double(server.sampleRate) / Double(server.period)
        for (rate, flow) in zip(rates, flows) {
            #expect(flow.last?.1 == OSCMessage("/frequency/done", [.int32(1)]), "rate \(rate)")
            // The updates while moving: everything before the exact final value and done.
            let updates = flow.dropLast(2).compactMap(\.1.firstFloat)
            let ceiling = rate == 0 ? periodsPerSecond * seconds : Double(rate) * seconds
            TestLog.write("subscription rate \(rate): \(updates.count) updates over \(seconds) s of motion (ceiling \(ceiling))")
            #expect(Double(updates.count) <= ceiling + 1, "rate \(rate): \(updates.count) updates")
            #expect(Double(updates.count) >= ceiling * 0.7, "rate \(rate): only \(updates.count) updates")
            #expect(zip(updates, updates.dropFirst()).allSatisfy { $0 < $1 }, "rate \(rate): rising, never the same value twice")
            #expect(flow.dropLast().last?.1 == OSCMessage("/frequency", [.float32(880)]), "rate \(rate): the exact final value")
            if rate > 0 {
                // No second within the run got more than the rate (+1 for where the window falls).
                let times = flow.dropLast(2).map(\.0)
                for (i, t) in times.enumerated() {
                    let within = times[i...].prefix { $0 - t < .seconds(1) }.count
                    #expect(Double(within) <= Double(rate) + 1, "rate \(rate): \(within) updates within one second")
                }
            }
        }
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aSubscriptionLapsesAfterItsTimeToLiveUnlessRenewed() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-ttl", arguments: ["--subscription-ttl", "1"])
        let once = try OSCClient(port: paramd.port)
        let renewing = try OSCClient(port: paramd.port)
        try once.send("/subscribe", [.string("/pan")])
        try renewing.send("/subscribe", [.string("/pan")])
        _ = await once.receive(until: "/pan")
        _ = await renewing.receive(until: "/pan")
        // 3 s: past one TTL plus the once-a-second expiry sweep; the second one renews every 0.4 s.
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(400))  // sleep: the time-to-live is what is tested: renewals 0.4 s apart
            try renewing.send("/subscribe", [.string("/pan")])
        }
        _ = renewing.socket.drain()
        _ = once.socket.drain()
        try await paramd.process.waitForLine(containing: "subscription lapsed", on: .stderr, timeout: .seconds(3))
        let client = try OSCClient(port: paramd.port)
        #expect(try await client.request("/status", reply: "/status")?.statusInt("subscribers") == 1)
        try client.send("/pan", [.float32(1), .float32(0.2)])
        #expect(await renewing.receive(until: "/pan/done") != nil, "the renewed subscription is alive")
        #expect(await once.receive(timeout: .milliseconds(500)) == nil, "the lapsed one gets nothing")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func theCapRefusesOneSubscriberTooManyButNotARenewal() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-cap", arguments: ["--max-subscribers", "2"])
        let a = try OSCClient(port: paramd.port), b = try OSCClient(port: paramd.port), c = try OSCClient(port: paramd.port)
        #expect(try await a.request("/subscribe", reply: "/subscribed") != nil)
        #expect(try await b.request("/subscribe", [.string("/tone")], reply: "/subscribed") != nil)
        #expect(try await c.request("/subscribe", reply: "/error")
                == OSCMessage("/error", [.string("/subscribe"), .string("too many subscribers (at most 2)")]))
        // A renewal, or another pattern, of a subscriber already counted is fine.
        #expect(try await a.request("/subscribe", reply: "/subscribed") != nil)
        #expect(try await a.request("/subscribe", [.string("/pan"), .int32(10)], reply: "/subscribed") != nil)
        // Feedback to a third port is a third subscriber (it is a different address).
        let third = try UDPSocket(.ipv4)
        #expect(try await a.request("/subscribe", [.string("/*"), .int32(60), .int32(Int32(third.port))], reply: "/error") != nil)
        // One leaves; the third gets in.
        try a.send("/unsubscribe")
        try await c.waitForStatus("subscribers") { $0 == 1 }
        #expect(try await c.request("/subscribe", reply: "/subscribed") != nil)
        #expect(try await c.request("/status", reply: "/status")?.statusInt("subscribers") == 2)
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func aSubscriberWhoseAddressRefusesPacketsIsDropped() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-refuse")
        let client = try OSCClient(port: paramd.port)
        var listener: UDPSocket? = try UDPSocket(.ipv4)
        let port = listener!.port
        try client.send("/subscribe", [.string("/*"), .int32(0), .int32(Int32(port))])
        #expect(await listener!.receive(timeout: .seconds(3)) != nil, "the listener got /subscribed")
        #expect(try await client.request("/status", reply: "/status")?.statusInt("subscribers") == 1)
        listener = nil  // closed: its port now answers with ICMP port unreachable
        #expect(listener == nil)
        try client.send("/pan", [.float32(1), .float32(2)])
        try await paramd.process.waitForLine(containing: "subscriber refuses packets; dropped", on: .stderr, timeout: .seconds(5))
        #expect(try await client.request("/status", reply: "/status")?.statusInt("subscribers") == 0)
        #expect(try await client.request("/ping", reply: "/pong") != nil)
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func feedbackGoesOnlyToTheSendersOwnHost() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-host")
        // One port number, listened on by three hosts: 127.0.0.1, 127.0.0.2 (another loopback
        // address: "another host") and ::1.
        let (v4, other, v6) = try listenersOnOnePort()
        let all = [v4, other] + (v6.map { [$0] } ?? [])
        func heard() async -> [String] {
            var names: [String] = []
            for (name, socket) in zip(["127.0.0.1", "127.0.0.2", "::1"], all) where !socket.drain().isEmpty { names.append(name) }
            return names
        }
        // paramd answers in order: once a ping's /pong is back, what it sent before has arrived.
        func pinged(_ client: OSCClient) async throws {
            #expect(try await client.request("/ping", reply: "/pong") != nil)
        }

        // From 127.0.0.1, naming the port: only 127.0.0.1:port hears.
        let fromV4 = try OSCClient(port: paramd.port)
        try fromV4.send("/subscribe", [.string("/tone"), .int32(60), .int32(Int32(v4.port))])
        try await pinged(fromV4)
        #expect(await heard() == ["127.0.0.1"])
        try fromV4.send("/unsubscribe", [.string("/tone"), .int32(Int32(v4.port))])

        // From 127.0.0.2: only 127.0.0.2:port.
        let fromOther = OSCClient(port: paramd.port, socket: try UDPSocket(.ipv4, address: "127.0.0.2"))
        try fromOther.send("/subscribe", [.string("/tone"), .int32(60), .int32(Int32(v4.port))])
        try await pinged(fromOther)
        #expect(await heard() == ["127.0.0.2"])
        try fromOther.send("/unsubscribe", [.string("/tone"), .int32(Int32(v4.port))])

        // From ::1: only [::1]:port.
        if v6 != nil {
            let fromV6 = try OSCClient(port: paramd.port, family: .ipv6)
            try fromV6.send("/subscribe", [.string("/tone"), .int32(60), .int32(Int32(v4.port))])
            try await pinged(fromV6)
            #expect(await heard() == ["::1"])
            try fromV6.send("/unsubscribe", [.string("/tone"), .int32(Int32(v4.port))])
            // Without a port, to the sender itself, over IPv6.
            #expect(try await fromV6.request("/subscribe", [.string("/pan")], reply: "/subscribed") != nil)
        }

        // No argument can name a host: a fourth argument, or a port spelled as an address, is refused.
        let sneaky = try OSCClient(port: paramd.port)
        #expect(try await sneaky.request("/subscribe", [.string("/*"), .int32(60), .int32(Int32(v4.port)), .string("127.0.0.2")], reply: "/error")
                == OSCMessage("/error", [.string("/subscribe"), .string("expects [pattern [rate [port]]]")]))
        #expect(try await sneaky.request("/subscribe", [.string("/*"), .int32(60), .string("127.0.0.2:\(v4.port)")], reply: "/error")
                == OSCMessage("/error", [.string("/subscribe"), .string("the port must be an integer 1…65535")]))
        try await pinged(sneaky)
        #expect(await heard() == [])
        #expect(try await paramd.stop() == .exited(0))
    }

    /// Sockets on 127.0.0.1, 127.0.0.2 and (where there is IPv6) ::1, all on one port number.
    private func listenersOnOnePort() throws -> (UDPSocket, UDPSocket, UDPSocket?) {
        var lastError: (any Error)?
        for _ in 0..<20 {
            do {
                let v4 = try UDPSocket(.ipv4, address: "127.0.0.1")
                let other = try UDPSocket(.ipv4, address: "127.0.0.2", port: v4.port)
                let v6 = UDPSocket.isIPv6Available ? try UDPSocket(.ipv6, address: "::1", port: v4.port) : nil
                return (v4, other, v6)
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }
}
