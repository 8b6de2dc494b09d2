import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §4.4, §6: `/status` tells the truth while JACK is away — `waiting` before the first
/// connection, `lost` after one dropped — as a new user would meet it.
@Suite(.serialized)
struct JackStatusTests {
    @Test func withNoServerToReachStatusSaysWaitingWithSampleRateZero() async throws {
        let home = TestHome("no-server")
        let port = try freeUDPPort()
        let paramd = try launchParamd(server: JackServer.uniqueName("nosuchserver"), name: "paramd-waiting",
                                      port: port, environment: home.environment)
        defer { paramd.signal(SIGTERM) }
        try await paramd.waitForLine(containing: "OSC is up", on: .stderr, timeout: .seconds(10))
        let client = try OSCClient(port: port)
        let status = try #require(try await client.request("/status", reply: "/status")).statusPairs
        #expect(status["jack"] == .string("waiting"))
        #expect(status["sample_rate"] == .int32(0))
        #expect(status["buffer_size"] == .int32(0))
        #expect(status["dsp_load"] == .float32(0))
        #expect(try await paramd.stop(signal: SIGTERM) == .exited(0))
    }

    /// libjack's messages go through `MessageSlots` (its threads may be cancelled inside the
    /// callback) and the control thread logs them: at debug level each retry's complaint is
    /// there, at the default level none.
    @Test func libjacksComplaintsReachTheDebugLogFromTheControlThread() async throws {
        let home = TestHome("libjack-messages")
        let port = try freeUDPPort()
        let paramd = try launchParamd(server: JackServer.uniqueName("nosuchserver"), name: "paramd-libjack-log",
                                      port: port, arguments: ["--log-level", "debug"], environment: home.environment)
        defer { paramd.signal(SIGTERM) }
        try await paramd.waitForLine(containing: "OSC is up", on: .stderr, timeout: .seconds(10))
        // The first attempt's complaint, then a retry's a second later.
        try await paramd.waitForLine(containing: "libjack: ", on: .stderr, timeout: .seconds(5))
        let first = paramd.standardError.components(separatedBy: "libjack: ").count
        try? await waitUntil("a retry's libjack messages", timeout: .seconds(5), on: [paramd.outputWatch()]) {
            paramd.standardError.components(separatedBy: "libjack: ").count > first
        }
        #expect(paramd.standardError.components(separatedBy: "libjack: ").count > first, "a retry's messages")
        #expect(try await paramd.stop(signal: SIGTERM) == .exited(0))

        let quiet = try launchParamd(server: JackServer.uniqueName("nosuchserver"), name: "paramd-libjack-quiet",
                                     port: try freeUDPPort(), environment: home.environment)
        defer { quiet.signal(SIGTERM) }
        try await quiet.waitForLine(containing: "OSC is up", on: .stderr, timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(1500))  // sleep: a window holding a retry (a second apart): none of its libjack messages may be logged
        #expect(try await quiet.stop(signal: SIGTERM) == .exited(0))
        #expect(!quiet.standardError.contains("libjack: "))
    }

    @Test func afterTheServerWentAwayStatusSaysLostThenConnectedWhenItIsBack() async throws {
        let home = TestHome("lost")
        try await withParamdOnALosableServer("lost", name: "paramd-lost", environment: home.environment) { servers, paramd in
            let client = try OSCClient(port: paramd.port)
            #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("connected"))

            try await servers.goAway(from: paramd)
            #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("lost"))

            try await servers.comeBack(to: paramd, timeout: .seconds(10))
            #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("connected"))
            #expect(try await paramd.stop() == .exited(0))
        }
    }
}
