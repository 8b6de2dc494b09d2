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

    @Test func afterTheServerWentAwayStatusSaysLostThenConnectedWhenItIsBack() async throws {
        let serverName = JackServer.uniqueName("lost")
        let home = TestHome("lost")
        var server = try await JackServer.start(name: serverName)
        let paramd: ParamdProcess
        do {
            paramd = try await ParamdProcess.start(server: server, name: "paramd-lost", environment: home.environment)
        } catch {
            try? await server.stop()
            throw error
        }
        defer { paramd.process.signal(SIGTERM) }
        let client = try OSCClient(port: paramd.port)
        #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("connected"))

        try await server.stop()
        try await paramd.process.waitForLine(containing: "went away", on: .stderr, timeout: .seconds(5))
        #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("lost"))

        server = try await JackServer.start(name: serverName)
        try await paramd.process.waitForLine(containing: "is back", on: .stderr, timeout: .seconds(10))
        #expect(try await client.request("/status", reply: "/status")?.statusPairs["jack"] == .string("connected"))
        #expect(try await paramd.stop() == .exited(0))
        try await server.stop()
    }
}
