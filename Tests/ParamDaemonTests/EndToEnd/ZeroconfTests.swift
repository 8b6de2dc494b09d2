import Foundation
import Testing

/// SPEC §9's zeroconf with a real Avahi daemon (Debian's avahi-daemon on a system D-Bus),
/// inside a network and mount namespace the test makes (Tests/Support/zeroconf/
/// announce-in-netns.sh): without Avahi one log line and paramd carries on; on loopback one
/// line; on the network `_oscjson._tcp` and `_osc._udp` under the client name, found by
/// `avahi-browse` and by python-oscquery's own zeroconf browser, which then reads HOST_INFO at
/// the address it found; withdrawn when paramd exits. Needs root (unshare) and veth.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ZeroconfTests {
    @Test func announcedThroughARealAvahiDaemonWhenListeningBeyondLoopback() async throws {
        let server = try JackServer.required()
        let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support").path
        let out = TestDirectory.file("zeroconf")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let osc = try freeUDPPort(), http = try freeTCPPort()
        let run = try ChildProcess("unshare", ["--net", "--mount", "--propagation", "private", "bash",
                                               "\(support)/zeroconf/announce-in-netns.sh", try Binaries.paramd(), server.name,
                                               "\(osc)", "\(http)", support, out],
                                   environment: server.environment, label: "zeroconf-netns")
        let status = try await run.waitForExit(timeout: .seconds(150))
        #expect(status == .exited(0), "\(run.outputSummary(lines: 80))")
        var results: [(String, String)] = []
        for line in run.standardOutput.split(separator: "\n") where line.hasPrefix("RESULT ") {
            let rest = line.dropFirst(7)
            let key = rest.prefix { $0 != " " }
            results.append((String(key), String(rest.dropFirst(key.count).drop { $0 == " " })))
        }
        func values(_ key: String) -> [String] { results.filter { $0.0 == key }.map(\.1) }
        TestLog.write("zeroconf: " + results.map { "\($0.0): \($0.1)" }.joined(separator: " | "))

        // Without a daemon: one line, and paramd carries on.
        #expect(values("no-avahi-ready") == ["yes"])
        #expect(values("no-avahi-lines") == ["1"])
        #expect(values("no-avahi-line").first?.contains("no Avahi daemon") == true, "\(values("no-avahi-line"))")
        #expect(values("avahi") == ["running"], "the test's avahi-daemon: \(run.outputSummary(lines: 80))")
        // Loopback only: one line, nothing announced.
        #expect(values("loopback-line").count == 1)
        #expect(values("loopback-line").first?.contains("loopback only") == true)
        // On the network: both services, under the client name, on the bound address.
        #expect(values("announced") == ["yes"], "\(run.outputSummary(lines: 80))")
        let oscjson = values("browse-oscjson").filter { $0.contains(";paramd-zc;") }
        let oscudp = values("browse-osc").filter { $0.contains(";paramd-zc;") }
        #expect(oscjson.contains { $0.contains(";192.0.2.10;\(http);") }, "\(values("browse-oscjson"))")
        #expect(oscudp.contains { $0.contains(";192.0.2.10;\(osc);") }, "\(values("browse-osc"))")
        #expect(values("threads").first?.contains("paramd-avahi") == true, "\(values("threads"))")
        // python-oscquery's browser found it, and its client read HOST_INFO there.
        let client = try #require(values("client").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(client.utf8)) as? [String: Any], "\(client)")
        let discovered = try #require(json["discovered"] as? [[String: Any]])
        #expect(discovered.contains { ($0["name"] as? String)?.hasPrefix("paramd-zc.") == true && $0["port"] as? Int == Int(http) },
                "\(discovered)")
        let info = try #require(json["host_info"] as? [String: Any], "\(json)")
        #expect(info["name"] as? String == "paramd-zc")
        #expect(info["osc_port"] as? Int == Int(osc))
        #expect(info["osc_ip"] as? String == "192.0.2.10")
        #expect(values("paramd-exit").allSatisfy { $0 == "0" } && values("paramd-exit").count == 3)
        #expect(values("after-exit-oscjson") == ["0"], "withdrawn at exit")
    }
}
