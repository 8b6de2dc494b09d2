import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §4.6: a bundle whose time has passed starts as soon as possible and counts as `late`;
/// nested bundles are honoured.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct LateBundleTests {
    func status(_ client: OSCClient) async throws -> [String: OSCArgument] {
        guard let reply = try await client.request("/status", reply: "/status") else { return [:] }
        var pairs: [String: OSCArgument] = [:]
        var i = 0
        while i + 1 < reply.arguments.count {
            if case .string(let name) = reply.arguments[i] { pairs[name] = reply.arguments[i + 1] }
            i += 2
        }
        return pairs
    }

    @Test func aBundleTaggedInThePastStartsAtOnceAndIsCountedLate() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-late")
        let client = try OSCClient(port: paramd.port)
        #expect(try await status(client)["late"] == .int32(0))
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let past = OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 - 1)!
        try client.send(.bundle(timeTag: past, elements: [.message(OSCMessage("/tone", [.float32(0.5), .float32(0)]))]))
        try await client.waitForStatus("late") { $0 == 1 }
        #expect(try await status(client)["late"] == .int32(1))
        let tone = try await client.request("/tone/get", reply: "/tone")
        #expect(tone?.firstFloat == 0.5, "it started anyway")
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func nestedBundlesApplyAndAnInnerTimeTagIsHonoured() async throws {
        // The inner tag is on time unless JACK ran the cycle holding it without paramd: then it
        // has passed when paramd next runs, and counts late, as SPEC §4.6 says. Such an attempt's
        // late count (an xrun JACK reported) is not judged and the attempt is made again; a late
        // count with no xrun fails.
        for attempt in 1...3 {
            let paramd = try await ParamdProcess.start(name: "paramd-nested")
            let client = try OSCClient(port: paramd.port)
            let xrunsBefore = try await status(client)["xruns"]?.integerValue
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let soon = OSCTimeTag(unixSeconds: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9 + 0.3)!
            try client.send(.bundle(timeTag: OSCTimeTag.immediately, elements: [
                .message(OSCMessage("/pan", [.float32(-1), .float32(0)])),
                .bundle(timeTag: soon, elements: [.message(OSCMessage("/tone", [.float32(0.25), .float32(0)]))]),
            ]))
            try await client.waitForValue("pan") { value, _ in value == -1 }
            #expect(try await client.request("/pan/get", reply: "/pan")?.firstFloat == -1)
            #expect(try await client.request("/tone/get", reply: "/tone")?.firstFloat == 0, "not yet: its time is 0.3 s away")
            try await client.waitForValue("tone") { value, _ in value == 0.25 }
            #expect(try await client.request("/tone/get", reply: "/tone")?.firstFloat == 0.25)
            let after = try await status(client)
            let late = after["late"]?.integerValue
            var xrunsAfter = after["xruns"]?.integerValue
            if late != 0 {
                // libjack reports an xrun on an ordinary thread, which a loaded machine can hold back.
                do {
                    try await pollUntil("an xrun reported", timeout: .seconds(2)) {
                        xrunsAfter = try await self.status(client)["xruns"]?.integerValue
                        return xrunsAfter != xrunsBefore
                    }
                } catch is WaitError {}
            }
            #expect(try await paramd.stop() == .exited(0))
            let counts = "late \(late.map(String.init) ?? "none"), xruns \(xrunsBefore.map(String.init) ?? "none") → \(xrunsAfter.map(String.init) ?? "none")"
            if late == 0 { return }
            guard xrunsAfter != xrunsBefore else {
                Issue.record("the inner bundle, 0.3 s ahead, was counted late with no xrun reported (\(counts))")
                return
            }
            TestLog.write("nested bundles, attempt \(attempt): counted late beside an xrun (\(counts)); the late count not judged")
        }
        Issue.record("nested bundles: JACK reported an xrun in every attempt, so the inner tag's late count was never judged")
    }
}
