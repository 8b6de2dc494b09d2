import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §16 across a network: paramd bound in one namespace (AccessRig), clients in another,
/// joined by veth; nothing leaves through the machine's own interfaces. A real Chromium opens
/// the URL paramd printed, curl and a WebSocket client try the doors, UDP comes from inside and
/// outside `allow`. Runs alone in `make test` (Chromium takes both cores when it starts); skips
/// without network namespaces. Loopback is held unchanged by every other suite.
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct AccessTests {
    /// The printed URL opens the page on a phone-sized Chromium on the other host: without the
    /// token it gets the token form and opens no WebSocket; with it, 303 to the bare URL, the
    /// page goes live, and a press on the volume track moves the value JACK carries.
    @Test func aPhoneOnTheNetworkOpensThePrintedURLAndMovesTheValue() async throws {
        try ControlPage.requireBrowser()
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-page", arguments: [])
                let token = try rig.loggedToken()
                let feeder = try await JackTool.feed(server: jack, name: "feeder-access", connect: ["paramd-access-page:in_1"], value: 1)
                let recorder = try await JackTool.record(server: jack, name: "rec-access", connect: ["paramd-access-page:out_1"], seconds: 60)
                let out = TestDirectory.file("access-page") + ".json"
                let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/access_page.py").path
                let url = "http://\(rig.server.address):\(rig.httpPort)/ui?token=\(token)"
                let (status, output) = try await lab.run(
                    in: rig.client, ["python3", script, "--url", url, "--out", out, "--fraction", "0.2",
                                     "--screenshot", try ControlPage.artifact("phone.png")], timeout: .seconds(120))
                let recording = try await recorder.stop()
                try await feeder.stop()
                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
                try #require(status == .exited(0), "access_page.py: \(output)")

                struct Result: Decodable {
                    struct Without: Decodable { var title: String; var url: String; var form: Int; var scripts: Int; var sliders: Int }
                    struct With: Decodable { var url: String; var cookie_visible: Bool }
                    struct Reading: Decodable { var connection: String?; var value: Double?; var target: Double? }
                    var without: Without
                    var with: With
                    var after: Reading
                }
                let result = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
                TestLog.write("access page: without the token \(result.without); with it \(result.with); after the press \(result.after)")
                #expect(result.without.form == 1 && result.without.sliders == 0 && result.without.scripts == 0,
                        "without the token: the form, no page, no script: \(result.without)")
                #expect(result.with.url == "http://\(rig.server.address):\(rig.httpPort)/ui", "redirected to the URL without the token")
                #expect(!result.with.cookie_visible, "the cookie is HttpOnly: the page's script cannot read it")
                let opened = rig.paramd.standardError.split(separator: "\n").filter { $0.contains("WebSocket open") }
                #expect(opened.count == 1 && opened.allSatisfy { $0.contains("role=control") || $0.contains("control") },
                        "one WebSocket, the tokened page's: \(opened)")
                let target = try #require(result.after.target)
                #expect(abs(target - 0.2) < 0.01, "the press at 20 % asked for \(target)")
                // Over JACK: out_1 leaves the initial 1 and arrives at the pressed target, and holds it
                // from then on. Chromium starting beside three JACK clients can make one of them late
                // for a cycle, which leaves a silent period (JACK does not always report it as an
                // xrun): silence counts as a gap, any other value fails, 3/4 must hold the target.
                let timeline = FrameTimeline(recording)
                let left = try #require(timeline.firstChange(leaving: 1), "out_1 never left the initial volume")
                let arrived = try #require(timeline.firstFrame(from: left.first) { $0 == Float(target) }, "out_1 never reached \(target)")
                let after = timeline.samples(0, in: arrived..<Int64.max).map(\.value)
                let holding = after.filter { $0 == Float(target) }.count
                TestLog.write("access page over JACK: left 1 at frame \(left.first), at \(target) from \(arrived); \(holding) of \(after.count) samples after hold it, the rest \(Set(after.filter { $0 != Float(target) }))")
                #expect(after.allSatisfy { $0 == Float(target) || $0 == 0 } && holding * 4 >= after.count * 3 && after.count >= 4096,
                        "out_1 holds the pressed target after reaching it: \(holding) of \(after.count), others \(Set(after))")
            }
        }
    }

    /// curl and a WebSocket client from the other host: 401 without the token on `/`, `/ui` and
    /// an upgrade; 200 with the bearer, the cookie, or `?token=` (303 for a browser); the read
    /// token LISTENs and its OSC gets `/error` and changes nothing; 11 wrong tokens: 429 on the
    /// eleventh, the right token from another address still works. The files are 0600 and the
    /// tokens are in no log line but the URL lines.
    @Test func httpAndTheWebSocketNeedTheTokenBeyondLoopback() async throws {
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let readPath = TestDirectory.file("read-token")
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-http", arguments: ["--read-token-file", readPath])
                let token = try rig.loggedToken(), readToken = try rig.loggedToken("control page, read only: ")
                #expect(try rig.loggedToken(address: "[fd77::1]") == token, "a URL for the IPv6 address too")
                for (path, value) in [(rig.tokenPath, token), (readPath, readToken)] {
                    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                    #expect(mode == 0o600, "\(path): mode \(String(mode ?? 0, radix: 8))")
                    #expect(try String(contentsOfFile: path, encoding: .utf8) == value + "\n")
                    #expect(value.count == 64 && value.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                }
                #expect(token != readToken)

                let upgrade = ["-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
                               "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
                for (path, extra) in [("/", [String]()), ("/ui", []), ("/", upgrade), ("/volume?VALUE", [])] {
                    let (status, output) = try await rig.curl(path, extra)
                    #expect(status == 401, "\(path) \(extra.isEmpty ? "" : "upgrade ")without a token: \(output)")
                }
                let form = try await lab.run(in: rig.client, ["curl", "-s", "http://\(rig.server.address):\(rig.httpPort)/ui"]).1
                #expect(form.contains("<form") && form.contains("name=\"token\"") && !form.contains("<script"), "the token form: \(form)")
                let bearer = ["-H", "Authorization: Bearer \(token)"]
                for path in ["/", "/ui", "/volume?VALUE"] {
                    let (status, output) = try await rig.curl(path, bearer)
                    #expect(status == 200, "\(path) with the bearer: \(output)")
                }
                #expect(try await rig.curl("/ui", ["-H", "Cookie: paramd_token=\(token)"]).status == 200, "with the cookie")
                let viaURL = try await rig.curl("/ui?token=\(token)", ["-H", "Accept: text/html"])
                #expect(viaURL.status == 303 && viaURL.output.contains("Location: /ui\r\n"), "\(viaURL.output)")
                #expect(viaURL.output.contains("Set-Cookie: paramd_token=\(token); Path=/; HttpOnly; SameSite=Strict"), "\(viaURL.output)")
                let viaQuery = try await rig.curl("/volume?VALUE&token=\(token)")
                #expect(viaQuery.status == 200 && viaQuery.output.contains("Set-Cookie: paramd_token="), "a non-browser gets 200: \(viaQuery.output)")
                #expect(try await rig.curl("/", ["-H", "Authorization: Bearer \(readToken)"]).status == 200, "the read token may GET")
                let (_, loopback) = try await lab.run(in: rig.server, ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                                                      "http://127.0.0.1:\(rig.httpPort)/ui"])
                #expect(loopback == "200", "on loopback no token is needed")

                // The observer: LISTEN streams, OSC gets /error and changes nothing; the control
                // token's OSC over the same kind of socket moves the target.
                let ws = Binaries.packageRoot.appendingPathComponent("Tests/Support/access_ws.py").path
                let move = OSCPacket.message(OSCMessage("/volume", [.float32(0), .float32(0)])).encoded().map { String(format: "%02x", $0) }.joined()
                struct WS: Decodable { var status: Int?; var listen: [String]; var replies: [String] }
                func websocket(_ token: String) async throws -> (WS, [OSCMessage]) {
                    let (_, output) = try await lab.run(in: rig.client, ["python3", ws, "--url", "ws://\(rig.server.address):\(rig.httpPort)/",
                                                                         "--token", token, "--osc", move], timeout: .seconds(30))
                    let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(output)")
                    let result = try JSONDecoder().decode(WS.self, from: Data(line.utf8))
                    return (result, result.replies.flatMap { OSCClient.messages(in: AccessRig.bytes(Substring($0))) })
                }
                let (observed, observerReplies) = try await websocket(readToken)
                #expect(observed.status == 101, "\(observed)")
                #expect(observed.listen.first.map { OSCClient.messages(in: AccessRig.bytes(Substring($0))).first?.address } == "/volume",
                        "LISTEN sends the value: \(observed)")
                #expect(observerReplies.contains { $0.address == "/error" && $0.arguments.first?.stringValue == "/volume" }, "\(observerReplies)")
                let target = try await rig.exchange(from: nil, [.message(OSCMessage("/volume/get"))])
                #expect(target.first { $0.address == "/volume/target" }?.arguments.first == .float32(1), "unchanged: \(target)")
                let (wrong, _) = try await websocket(String(repeating: "0", count: 64))
                #expect(wrong.status == 401, "a WebSocket with a wrong token: \(wrong)")
                let (controlled, controlReplies) = try await websocket(token)
                #expect(controlled.status == 101 && !controlReplies.contains { $0.address == "/error" }, "\(controlReplies)")
                let moved = try await rig.exchange(from: nil, [.message(OSCMessage("/volume/get"))])
                #expect(moved.first { $0.address == "/volume/target" }?.arguments.first == .float32(0), "the control token moves it: \(moved)")

                // Guessing: the wrong token above counted once; nine more 401, then 429.
                var statuses: [Int] = []
                for i in 0..<10 { statuses.append(try await rig.curl("/", ["-H", "Authorization: Bearer wrong\(i)"]).status) }
                #expect(statuses == Array(repeating: 401, count: 9) + [429], "\(statuses)")
                let blocked = try await rig.curl("/", bearer)
                #expect(blocked.status == 429 && blocked.output.contains("Retry-After: 60"), "the right token from the blocked address: \(blocked.output)")
                #expect(try await rig.curl("/", bearer + ["--interface", AccessRig.outsider]).status == 200, "another address still works")
                #expect(rig.paramd.standardError.contains("HTTP: \(rig.client.address) sent 10 wrong tokens within a minute; it gets 429 for a minute"))

                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
                let lines = rig.paramd.standardError.split(separator: "\n")
                for secret in [token, readToken] {
                    let carrying = lines.filter { $0.contains(secret) }
                    #expect(!carrying.isEmpty && carrying.allSatisfy { $0.contains("control page") && $0.contains("/ui?token=\(secret)") },
                            "the token only in the URL lines: \(carrying)")
                }
                TestLog.write("access over HTTP: 401 without a token, 200 with it, guesses \(statuses), \(lines.count) log lines checked")
            }
        }
    }

    /// docs/examples/Caddyfile as docs/OPERATIONS.md shows it: Caddy (Debian's) serves HTTPS in
    /// front of paramd; through it the token is still asked for (401, then 200 with the bearer),
    /// a WebSocket from the page's own https origin opens with it and is answered, and one from
    /// another site's origin is still refused (paramd's Origin check, unchanged).
    @Test func aTLSProxyInFrontKeepsTheToken() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/caddy") else {
            throw NetworkLabError(description: "/usr/bin/caddy is missing: run scripts/install-deps.sh (Debian package caddy)")
        }
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-tls", arguments: ["--http-allow-host", "studio.test"])
                let token = try rig.loggedToken()
                let data = TestDirectory.file("caddy-data")
                let caddyfile = Binaries.packageRoot.appendingPathComponent("docs/examples/Caddyfile").path
                let caddy = try lab.spawn(
                    in: rig.server, ["/usr/bin/env", "HOME=\(data)", "XDG_DATA_HOME=\(data)", "XDG_CONFIG_HOME=\(data)",
                                     "PARAMD_NAME=studio.test", "PROXY_PORT=8443", "PARAMD_ADDRESS=\(rig.server.address)",
                                     "PARAMD_HTTP_PORT=\(rig.httpPort)", "/usr/bin/caddy", "run", "--config", caddyfile, "--adapter", "caddyfile"],
                    label: "caddy")
                try await caddy.waitForLine(containing: "serving initial configuration", timeout: .seconds(30))
                let through = ["-k", "--resolve", "studio.test:8443:\(rig.server.address)"]
                func proxied(_ extra: [String]) async throws -> String {
                    try await lab.run(in: rig.client, ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"] + through + extra
                                      + ["https://studio.test:8443/ui"], timeout: .seconds(30)).1
                }
                #expect(try await proxied([]) == "401", "through the proxy, without the token")
                #expect(try await proxied(["-H", "Authorization: Bearer \(token)"]) == "200", "with it")
                let ws = Binaries.packageRoot.appendingPathComponent("Tests/Support/access_ws.py").path
                let ping = OSCPacket.message(OSCMessage("/ping")).encoded().map { String(format: "%02x", $0) }.joined()
                // The client host has no name for studio.test: it goes to the address, with the name in Host.
                func websocket(origin: String) async throws -> String {
                    let (_, output) = try await lab.run(in: rig.client, [
                        "env", "PYTHONUNBUFFERED=1", "python3", "-c",
                        "import socket, runpy, sys; real = socket.getaddrinfo; "
                            + "socket.getaddrinfo = lambda h, *a, **k: real('\(rig.server.address)' if h == 'studio.test' else h, *a, **k); "
                            + "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
                        ws, "--url", "wss://studio.test:8443/", "--token", token, "--osc", ping, "--origin", origin],
                        timeout: .seconds(30))
                    return output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? output
                }
                let own = try await websocket(origin: "https://studio.test:8443")
                TestLog.write("through Caddy, from the page's own origin: \(own)")
                #expect(own.contains("\"status\": 101"), "a WebSocket through the proxy: \(own)")
                #expect(own.contains(OSCMessage("/pong").encoded().map { String(format: "%02x", $0) }.joined()), "its OSC answered: \(own)")
                let foreign = try await websocket(origin: "https://evil.example")
                #expect(foreign.contains("\"status\": 403"), "another site's page, even with the token: \(foreign)")
                _ = try? await caddy.stop(signal: SIGTERM)
                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
            }
        }
    }
}
