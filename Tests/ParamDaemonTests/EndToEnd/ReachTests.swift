import Foundation
import ParamCore
import Testing

/// SPEC §4.8 and §5: loopback only by default, both families; ports and pretty names.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ReachTests {
    @Test func paramdListensOnLoopbackOnlyOnBothFamilies() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-reach")
        let ss = try ChildProcess("/usr/bin/ss", ["-Hulnp"], label: "ss")
        _ = try await ss.waitForExit()
        let mine = ss.standardOutput.split(separator: "\n").filter { $0.contains(":\(paramd.port) ") }
        let locals = mine.compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.map(String.init) }
        #expect(locals.contains("127.0.0.1:\(paramd.port)"), "\(mine)")
        if UDPSocket.isIPv6Available { #expect(locals.contains("[::1]:\(paramd.port)"), "\(mine)") }
        #expect(!locals.contains { $0.hasPrefix("0.0.0.0:") || $0.hasPrefix("*:") || $0.hasPrefix("[::]:") }, "\(mine)")

        for family in [UDPSocket.Family.ipv4] + (UDPSocket.isIPv6Available ? [.ipv6] : []) {
            let client = try OSCClient(port: paramd.port, family: family)
            #expect(try await client.request("/ping", reply: "/pong") == OSCMessage("/pong"))
        }
        #expect(try await paramd.stop() == .exited(0))
    }

    @Test func portsExistWithPrettyNamesInJackMetadataAndConnectIsHonoured() async throws {
        let server = try JackServer.required()
        let paramd = try await ParamdProcess.start(server: server, name: "paramd-ports",
                                                   arguments: ["--connect", "system:playback_1,system:playback_2"])
        let ports = try await server.ports()
        for p in ["in_1", "in_2", "out_1", "out_2"] { #expect(ports.contains("paramd-ports:\(p)")) }
        let connections = try await server.connections()
        #expect(connections["paramd-ports:out_1"]?.contains("system:playback_1") == true, "\(connections)")
        #expect(connections["paramd-ports:out_2"]?.contains("system:playback_2") == true, "\(connections)")
        #expect(try await paramd.stop() == .exited(0))

        // JACK2 keeps metadata in one database for all of a user's servers, keyed by port UUIDs
        // that every server numbers the same way: when a client of another test server running
        // at the same time closes a port with the same UUID, our property goes with it. So a
        // missing name is tried again with a fresh paramd (fresh UUIDs); one good read proves it.
        var seen: [String] = []
        for attempt in 1...4 {
            let again = try await ParamdProcess.start(server: server, name: "paramd-pretty\(attempt)")
            let property = try ChildProcess("/usr/bin/jack_property", ["--port", "-l", "paramd-pretty\(attempt):out_1", "http://jackaudio.org/metadata/pretty-name"],
                                            environment: ["JACK_DEFAULT_SERVER": server.name], label: "jack_property")
            _ = try await property.waitForExit()
            #expect(try await again.stop() == .exited(0))
            seen.append(property.standardOutput + property.standardError)
            if property.standardOutput.contains("paramd output 1") { break }
        }
        #expect(seen.last?.contains("paramd output 1") == true, "\(seen)")
    }

    @Test func badInputGetsAnErrorAndPingStillAnswers() async throws {
        let paramd = try await ParamdProcess.start(name: "paramd-bad")
        let client = try OSCClient(port: paramd.port)
        let e1 = try await client.request("/nowhere", reply: "/error")
        #expect(e1 == OSCMessage("/error", [.string("/nowhere"), .string("unknown address")]))
        let e2 = try await client.request("/volume", [.float32(.nan)], reply: "/error")
        #expect(e2?.arguments.first == .string("/volume"))
        let w = try await client.request("/volume", [.float32(2)], reply: "/warning")
        #expect(w?.arguments.first == .string("/volume"))
        try client.socket.send([0x2f, 0x78, 0, 0, 0x2c, 0x66], toPort: paramd.port)  // truncated
        #expect(try await client.request("/ping", reply: "/pong") != nil)
        let target = try await client.request("/volume/get", reply: "/volume/target")
        #expect(target?.firstFloat == 1, "the clamped 2 is 1")
        #expect(try await paramd.stop() == .exited(0))
    }
}
