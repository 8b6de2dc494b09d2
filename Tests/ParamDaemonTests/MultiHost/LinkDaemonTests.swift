import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// paramd with `link = true` in one Ableton Link session with a peer paramd's code did not
/// write (PyPI's aalink, Tests/Support/link-peer.py), SPEC §14: the peer's tempo becomes
/// paramd's (`/status`, `/tempo/get`), and `/tempo` sent to paramd reaches the peer, at once
/// or gliding. paramd and its JACK server run in lab host 0, the peer in host 1: Link
/// multicasts on every interface, and in the lab those are `lo` and the lab's veth only.
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct LinkDaemonTests {
    /// The `/status` value after `key`.
    static func status(_ key: String, in reply: OSCMessage?) -> OSCArgument? {
        guard let arguments = reply?.arguments, let i = arguments.firstIndex(of: .string(key)), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }

    static func float(_ argument: OSCArgument?) -> Double? {
        if case .float32(let v)? = argument { Double(v) } else { nil }
    }

    @Test func paramdFollowsAndLeadsAPeerItDidNotWrite() async throws {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with(rate: 48_000, period: 256, namespace: lab.hosts[0].namespace) { server in
                let peerInput = try CommandPipe(label: "link-peer-daemon")
                let peer = try lab.spawn(in: lab.hosts[1], peerInput.command(["python3", script, "120"]), label: "link-peer-daemon")
                try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
                let paramd = try await HostedParamd.start(lab, on: lab.hosts[0], server: server, name: "paramd-link",
                                                          port: 9000, arguments: ["--link", "--log-level", "debug"])
                let client = OSCClient(port: 9000, socket: try lab.udpSocket(in: lab.hosts[0]))
                try await paramd.process.waitForLine(containing: "Link: 1 other peer(s)", on: .stderr, timeout: .seconds(20))
                try await peer.waitForLine(exactly: "peers 1", timeout: .seconds(20))

                // The peer sets 93 BPM: paramd's timeline follows.
                try peerInput.send("tempo 93")
                try await paramd.process.waitForLine(on: .stderr, timeout: .seconds(10), describedAs: "Link tempo ≈ 93") { line in
                    guard let range = line.range(of: "Link: session tempo ") else { return false }
                    return abs((Double(line[range.upperBound...].prefix { $0 != " " }) ?? 0) - 93) <= 0.01
                }
                let status = try await client.request("/status", reply: "/status")
                #expect(Self.status("timeline", in: status) == .string("link"), "\(String(describing: status))")
                #expect(Self.status("link_peers", in: status) == .int32(1), "\(String(describing: status))")
                #expect(abs((Self.float(Self.status("tempo", in: status)) ?? 0) - 93) <= 0.01, "\(String(describing: status))")
                TestLog.write("paramd's /status with an aalink peer at 93 BPM: timeline \(String(describing: Self.status("timeline", in: status))), tempo \(String(describing: Self.status("tempo", in: status))), link_peers \(String(describing: Self.status("link_peers", in: status)))")
                // The renderer's timeline runs at Link's tempo: the beat it publishes moves on.
                try await pollUntil("the audio side's beat advances at 93 BPM", timeout: .seconds(5)) {
                    let later = try await client.request("/status", reply: "/status")
                    let beat = Self.float(Self.status("beat", in: later)) ?? 0, before = Self.float(Self.status("beat", in: status)) ?? 0
                    return beat > before && abs((Self.float(Self.status("tempo", in: later)) ?? 0) - 93) <= 0.01
                }

                // paramd sets 140: the peer's session follows; /tempo/get reads Link's.
                try client.send("/tempo", [.float32(140)])
                try await peer.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 140", where: LinkPeerTests.line("tempo", near: 140))
                #expect(abs(Double(try await client.request("/tempo/get", reply: "/tempo")?.firstFloat ?? 0) - 140) <= 0.01)

                // Out of Link's range: an /error, and the session keeps 140.
                for bpm: Float in [0, 1000] {
                    let reply = try await client.request("/tempo", [.float32(bpm)], reply: "/error")
                    #expect(reply?.arguments.first == .string("/tempo"), "\(bpm): \(String(describing: reply))")
                }
                try peerInput.send("status")
                let peerStatus = try await peer.waitForLine(containing: "status peers")
                #expect(abs((LinkPeerTests.field("tempo", of: peerStatus) ?? 0) - 140) <= 0.01, "\(peerStatus)")

                // A glide over 0.3 s reaches the peer step by step, ending on 100.
                try client.send("/tempo", [.float32(100), .float32(0.3)])
                try await peer.waitForLine(timeout: .seconds(10), describedAs: "a step between 140 and 100") { line in
                    guard line.hasPrefix("tempo "), let bpm = Double(line.dropFirst(6)) else { return false }
                    return bpm > 101 && bpm < 139
                }
                try await peer.waitForLine(timeout: .seconds(10), describedAs: "tempo ≈ 100", where: LinkPeerTests.line("tempo", near: 100))

                #expect(try await paramd.stop() == .exited(0), "\(paramd.process.outputSummary())")
                try await peer.waitForLine(exactly: "peers 0", timeout: .seconds(20))
                try peerInput.send("quit")
                _ = try await peer.waitForExit(timeout: .seconds(20))
            }
        }
    }

    /// `link` is live: a SIGHUP that turns it off leaves the session (the peer counts none,
    /// `/status` says `internal`) and one that turns it on again joins it (the peer counts paramd
    /// again). The config file says it (`--link` on the command line would win over the file).
    @Test func aReloadLeavesAndJoinsTheSession() async throws {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/link-peer.py").path
        let name = "paramd-link-reload"
        let config = TestDirectory.file("link-reload") + ".toml"
        func configure(link: Bool) throws {
            try "link = \(link)\n".write(toFile: config, atomically: true, encoding: .utf8)
        }
        try configure(link: true)
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with(rate: 48_000, period: 256, namespace: lab.hosts[0].namespace) { server in
                let peerInput = try CommandPipe(label: "link-peer-reload")
                let peer = try lab.spawn(in: lab.hosts[1], peerInput.command(["python3", script, "120"]), label: "link-peer-reload")
                try await peer.waitForLine(exactly: "ready", timeout: .seconds(30))
                let paramd = try await HostedParamd.start(lab, on: lab.hosts[0], server: server, name: name, port: 9000,
                                                          arguments: ["--config", config])
                let client = OSCClient(port: 9000, socket: try lab.udpSocket(in: lab.hosts[0]))
                try await peer.waitForLine(exactly: "peers 1", timeout: .seconds(20))

                try configure(link: false)
                paramd.process.signal(SIGHUP)
                try await paramd.process.waitForLine(containing: "Link: left the session (link = false", on: .stderr)
                try await peer.waitForLine(exactly: "peers 0", timeout: .seconds(20))
                let status = try await client.request("/status", reply: "/status")
                #expect(Self.status("timeline", in: status) == .string("internal"), "\(String(describing: status))")
                #expect(Self.status("link_peers", in: status) == .int32(0), "\(String(describing: status))")

                try configure(link: true)
                paramd.process.signal(SIGHUP)
                try await waitUntil("the peer counts paramd again", timeout: .seconds(20), on: [peer.outputWatch()]) {
                    peer.standardOutput.split(separator: "\n").filter { $0 == "peers 1" }.count == 2
                }
                #expect(Self.status("timeline", in: try await client.request("/status", reply: "/status")) == .string("link"))
                #expect(try await paramd.stop() == .exited(0), "\(paramd.process.outputSummary())")
                try peerInput.send("quit")
                _ = try await peer.waitForExit(timeout: .seconds(20))
            }
        }
    }
}
