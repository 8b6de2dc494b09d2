import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension TimecodeEndToEndTests {
    /// SIGHUP replaces the config file's cues and keeps those set with `/at`; a cue set with
    /// `/at` (its arguments exactly) survives SIGTERM and a restart on the same home, the config's
    /// coming from the file again.
    @Test func sighupReplacesTheConfigsCuesAndCuesSetWithAtSurviveARestart() async throws {
        let server = try JackServer.required()
        let base = "timecode = \"ltc\"\n" + Self.cutoff
        let (paramd, home) = try await ParamdProcess.start(
            server: server, name: "paramd-tc-hup", config: base + "[[at]]\ntime = \"01:00:01:00\"\nmessage = [\"/cutoff\", 0.5, 1]\n")
        let client = try OSCClient(port: paramd.port)
        func list(_ client: OSCClient) async throws -> [OSCMessage] {
            try client.send("/at/list")
            return await client.receive(until: "/at/list/end") ?? []
        }
        let set = try await client.request("/at", [.string("01:00:03:00"), .string("/cutoff"), .float32(0.25), .float32(2), .string("easeIn")],
                                            reply: "/at")
        #expect(set == OSCMessage("/at", [.string("2")]))
        #expect(try await list(client) == [OSCMessage("/at", [.string("1"), .string("01:00:01:00"), .string("/cutoff")]),
                                           OSCMessage("/at", [.string("2"), .string("01:00:03:00"), .string("/cutoff")]),
                                           OSCMessage("/at/list/end", [.int32(2)])])
        try home.writeConfig(base + "[[at]]\ntime = \"01:00:02:00\"\nmessage = [\"/volume\", 0.2]\n")
        paramd.process.signal(SIGHUP)
        try await paramd.process.waitForLine(containing: "cues from the config file: 1", on: .stderr, timeout: .seconds(5))
        #expect(try await list(client) == [OSCMessage("/at", [.string("3"), .string("01:00:02:00"), .string("/volume")]),
                                           OSCMessage("/at", [.string("2"), .string("01:00:03:00"), .string("/cutoff")]),
                                           OSCMessage("/at/list/end", [.int32(2)])])
        #expect(try await paramd.stop() == .exited(0))

        let again = try await ParamdProcess.start(server: server, name: "paramd-tc-hup", environment: home.environment)
        let second = try OSCClient(port: again.port)
        let rows = try await list(second)
        #expect(rows.map { $0.arguments.dropFirst().map { $0 } } == [[.string("01:00:02:00"), .string("/volume")],
                                                                     [.string("01:00:03:00"), .string("/cutoff")], [] ],
                "\(rows)")
        let state = try String(contentsOfFile: home.stateFile, encoding: .utf8)
        let saved = OSCMessage("/cutoff", [.float32(0.25), .float32(2), .string("easeIn")]).encoded()
        #expect(state.contains(Data(saved).base64EncodedString()), "the state file keeps the message as sent: \(state)")
        #expect(try await again.stop() == .exited(0))
    }
}
