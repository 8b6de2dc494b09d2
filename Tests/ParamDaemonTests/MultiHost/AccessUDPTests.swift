import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SPEC §16's UDP allowlist, `--open`, SIGHUP and `--show-url`, across a network (AccessRig):
/// a datagram from outside `allow` is dropped before decoding and counted in `/status refused`
/// alone; from inside (IPv4 and IPv6) it is answered.
@Suite(.serialized, .enabled(if: NetworkLab.isPossible, NetworkLab.skipReason))
struct AccessUDPTests {
    static let ping = OSCPacket.message(OSCMessage("/ping"))

    /// Not OSC at all: an address without its slash, a type tag string that lies.
    static func fuzzed(_ seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<37).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33) | 0x80
        }
    }

    @Test func udpFromOutsideAllowIsDroppedBeforeDecodingAndSIGHUPRereadsAllowAndTokens() async throws {
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let config = TestDirectory.file("access-config") + ".toml"
                try "".write(toFile: config, atomically: true, encoding: .utf8)
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-udp", arguments: ["--config", config])
                #expect(rig.paramd.standardError.contains("UDP OSC accepted from loopback and 10.77.0.0/24, fd77::/64"),
                        "the default: the bound addresses' subnets: \(rig.paramd.standardError)")
                let before = try await rig.status()

                let inside = try await rig.exchange(from: rig.client.address, [Self.ping])
                #expect(inside.map(\.address) == ["/pong"], "from 10.77.0.2: \(inside)")
                let inside6 = try await rig.exchange(from: rig.client.address6, to: rig.server.address6, [Self.ping])
                #expect(inside6.map(\.address) == ["/pong"], "from fd77::2: \(inside6)")
                let outside = try await rig.exchange(from: AccessRig.outsider, [Self.ping])
                #expect(outside.isEmpty, "from \(AccessRig.outsider), outside allow: \(outside)")
                let fuzz = (1...5).map { Self.fuzzed(UInt64($0)) }
                #expect(try await rig.exchange(from: AccessRig.outsider, raw: fuzz, listen: 0.5).isEmpty)
                let after = try await rig.status()
                TestLog.write("access UDP: before \(["refused", "errors", "malformed"].map { "\($0) \(before[$0]?.intValue ?? -1)" }), after \(["refused", "errors", "malformed"].map { "\($0) \(after[$0]?.intValue ?? -1)" })")
                #expect(after["refused"]?.intValue == (before["refused"]?.intValue ?? 0) + 6, "one ping and five fuzzed packets refused")
                #expect(after["errors"]?.intValue == before["errors"]?.intValue, "nothing from outside was decoded: errors unchanged")
                #expect(after["malformed"]?.intValue == before["malformed"]?.intValue)
                #expect(after["open"]?.intValue == 0)
                // The control: the same bytes from inside are decoded, and are malformed.
                _ = try await rig.exchange(from: rig.client.address, raw: [fuzz[0]], listen: 0.5)
                let decoded = try await rig.status()
                #expect(decoded["malformed"]?.intValue == (after["malformed"]?.intValue ?? 0) + 1, "from inside the packet is decoded")
                #expect(decoded["refused"]?.intValue == after["refused"]?.intValue)
                #expect(rig.paramd.standardError.contains("UDP OSC from outside 'allow' dropped"), "logged")

                // SIGHUP: a new `allow` turns the two around; a new token replaces the old.
                try "allow = [\"10.78.0.0/24\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
                let oldToken = try rig.loggedToken()
                let newToken = String(repeating: "ab", count: 32)
                try (newToken + "\n").write(toFile: rig.tokenPath, atomically: false, encoding: .utf8)
                rig.paramd.signal(SIGHUP)
                try await rig.paramd.waitForLine(containing: "UDP OSC now accepted from loopback and 10.78.0.0/24", on: .stderr)
                try await rig.paramd.waitForLine(containing: "token files read again", on: .stderr)
                #expect(try await rig.exchange(from: AccessRig.outsider, [Self.ping]).map(\.address) == ["/pong"])
                #expect(try await rig.exchange(from: rig.client.address, [Self.ping]).isEmpty, "10.77.0.2 is no longer in allow")
                #expect(try await rig.curl("/", ["-H", "Authorization: Bearer \(oldToken)"]).status == 401, "the old token no longer")
                #expect(try await rig.curl("/", ["-H", "Authorization: Bearer \(newToken)"]).status == 200, "the new token")
                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
                #expect(!rig.paramd.standardError.contains(newToken), "the re-read token is logged nowhere")
            }
        }
    }

    /// A multicast group (SPEC §12) is guarded too: its default `allow` is the subnets of
    /// `--multicast-interface`, so a cue to the group from 10.77.0.2 is answered and one from
    /// 10.78.0.2, on the same link, is dropped undecoded.
    @Test func aMulticastGroupTakesOSCOnlyFromTheInterfacesSubnets() async throws {
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let group = MultiHostTests.group().v4
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-group", arguments: ["--multicast-interface", "eth0"],
                                                    binds: [group, "127.0.0.1"])
                #expect(rig.paramd.standardError.contains("UDP OSC accepted from loopback and 10.77.0.0/24, fd77::/64"), "\(rig.paramd.standardError)")
                #expect(!FileManager.default.fileExists(atPath: rig.tokenPath), "HTTP stays on loopback: no token is needed")
                let inside = try await rig.exchange(from: rig.client.address, to: group, [Self.ping])
                #expect(inside.map(\.address) == ["/pong"], "a cue from 10.77.0.2: \(inside)")
                let outside = try await rig.exchange(from: AccessRig.outsider, to: group, [Self.ping])
                #expect(outside.isEmpty, "from \(AccessRig.outsider): \(outside)")
                let status = try await rig.status()
                #expect(status["refused"]?.intValue == 1 && status["errors"]?.intValue == 0, "\(status)")
                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
            }
        }
    }

    @Test func openTurnsAccessControlOffWithAWarning() async throws {
        try await NetworkLab.with(hosts: 2) { lab in
            try await JackServer.with { jack in
                let rig = try await AccessRig.start(lab, jack: jack, name: "paramd-access-open", arguments: ["--open"])
                #expect(rig.paramd.standardError.contains("--open: access control is off"), "\(rig.paramd.standardError)")
                #expect(try await rig.status()["open"]?.intValue == 1)
                #expect(try await rig.curl("/ui").status == 200, "no token needed")
                #expect(try await rig.exchange(from: AccessRig.outsider, [Self.ping]).map(\.address) == ["/pong"], "UDP from anywhere")
                #expect(!FileManager.default.fileExists(atPath: rig.tokenPath), "no token file is made when none is needed")
                #expect(try await rig.paramd.stop(signal: SIGTERM) == .exited(0))
            }
        }
    }

    /// `paramd --show-url`: the URL with the token in the file, and a QR code that zbarimg
    /// (ZBar, from Debian) reads back as that URL.
    @Test func showURLPrintsTheURLAndAQRCodeThatReadsBack() async throws {
        try await NetworkLab.with(hosts: 1) { lab in
            let host = lab.hosts[0]
            let state = TestDirectory.file("show-url-state")
            let (status, output) = try await lab.run(in: host, ["env", "XDG_STATE_HOME=\(state)", "XDG_CONFIG_HOME=\(state)/none",
                                                                try Binaries.paramd(), "--show-url", "--bind", host.address])
            #expect(status == .exited(0), "\(output)")
            let token = try String(contentsOfFile: state + "/paramd/token", encoding: .utf8).trimmingCharacters(in: .newlines)
            let mode = try FileManager.default.attributesOfItem(atPath: state + "/paramd/token")[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let url = "http://\(host.address):9001/ui?token=\(token)"
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.contains(url), "\(output)")
            let code = lines.filter { !$0.isEmpty && $0.allSatisfy { " ▀▄█".contains($0) } }
            try #require(code.count > 10, "a QR code: \(output)")
            let image = TestDirectory.file("show-url") + ".pgm"
            try Self.pgm(code).write(toFile: image, atomically: true, encoding: .ascii)
            let (zbar, read) = try await NetworkLab.run(["/usr/bin/zbarimg", "--quiet", "--raw", image])
            // Its stderr comes along (ZBar asks D-Bus for nothing it needs): the decoded line is its own.
            let decoded = read.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("http") }
            #expect(zbar == .exited(0) && decoded == [Substring(url)], "zbarimg read: \(read)")
            TestLog.write("--show-url: \(code.count) lines of QR code, read back by zbarimg as the printed URL")
        }
    }

    /// Half-block text back to a picture, 4 pixels a module, dark modules black.
    static func pgm(_ lines: [String]) -> String {
        let scale = 4
        var rows: [[Bool]] = []
        for line in lines {
            let chars = Array(line)
            rows.append(chars.map { $0 == "▀" || $0 == "█" })
            rows.append(chars.map { $0 == "▄" || $0 == "█" })
        }
        let width = (rows.map(\.count).max() ?? 0) * scale
        var text = "P2\n\(width) \(rows.count * scale)\n255\n"
        for row in rows {
            let pixels = row.flatMap { Array(repeating: $0 ? "0" : "255", count: scale) }
                + Array(repeating: "255", count: width - row.count * scale)
            let line = pixels.joined(separator: " ") + "\n"
            for _ in 0..<scale { text += line }
        }
        return text
    }
}
