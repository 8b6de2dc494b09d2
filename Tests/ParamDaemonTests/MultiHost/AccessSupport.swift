import Foundation
import ParamCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two hosts for AccessTests (SPEC §16): paramd on host 1 (10.77.0.1, fd77::1, and loopback),
/// clients on host 2 (10.77.0.2, fd77::2, and 10.78.0.2: an address outside the default
/// `allow`, with a route back from host 1 so that a reply could reach it if one were sent).
struct AccessRig {
    let lab: NetworkLab
    let paramd: ChildProcess
    let home: String
    let httpPort: UInt16 = 9001
    let oscPort: UInt16 = 9000
    var server: NetworkLab.Host { lab.hosts[0] }
    var client: NetworkLab.Host { lab.hosts[1] }
    static let outsider = "10.78.0.2"

    /// Adds the outsider address, then starts paramd with `arguments` on host 1.
    /// `binds`: what paramd listens on, host 1's two addresses and loopback unless given.
    static func start(_ lab: NetworkLab, jack: JackServer, name: String, arguments: [String],
                      binds: [String]? = nil) async throws -> AccessRig {
        try await lab.checked(in: lab.hosts[1], ["ip", "addr", "add", outsider + "/24", "dev", "eth0"])
        try await lab.checked(in: lab.hosts[0], ["ip", "route", "add", "10.78.0.0/24", "dev", "eth0"])
        let home = TestDirectory.file("home-\(name)")
        let host = lab.hosts[0]
        let process = try lab.spawn(
            in: host,
            [try Binaries.paramd(), "--server", jack.name, "--name", name, "--port", "9000", "--http-port", "9001", "--no-state",
             "--log-level", "debug"] + (binds ?? [host.address, host.address6, "127.0.0.1"]).flatMap { ["--bind", $0] } + arguments,
            environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"], label: name)
        try await process.waitForLine(containing: "ready:", on: .stderr)
        return AccessRig(lab: lab, paramd: process, home: home)
    }

    var tokenPath: String { home + "/state/paramd/token" }

    /// The token in the page URL paramd logged for `address` (the line starting `label`).
    func loggedToken(_ label: String = "control page: ", address: String? = nil) throws -> String {
        let url = "http://\(address ?? server.address):\(httpPort)/ui?token="
        let line = try #require(paramd.standardError.split(separator: "\n").first { $0.contains(label + url) }, "\(paramd.standardError)")
        return String(line[line.range(of: url)!.upperBound...].prefix(64))
    }

    /// `curl` from the client host: the HTTP status (and with `headers`, the response headers).
    func curl(_ path: String, _ extra: [String] = [], host: String? = nil) async throws -> (status: Int, output: String) {
        let (_, output) = try await lab.run(
            in: client, ["curl", "-s", "-o", "/dev/null", "-D", "-", "-w", "STATUS %{http_code}\n", "--max-time", "10"] + extra
                + ["http://\(host ?? server.address):\(httpPort)\(path)"], timeout: .seconds(30))
        let status = output.split(whereSeparator: \.isNewline).last { $0.hasPrefix("STATUS ") }.flatMap { Int($0.dropFirst(7)) } ?? -1
        return (status, output)
    }

    /// OSC packets from `source` on the client host to `to`; the replies, each decoded.
    func exchange(from source: String?, to: String? = nil, _ packets: [OSCPacket], listen: Double = 1.0) async throws -> [OSCMessage] {
        try await exchange(from: source, to: to, raw: packets.map { $0.encoded() }, listen: listen)
    }

    /// The same with datagrams of any bytes.
    func exchange(from source: String?, to: String? = nil, raw packets: [[UInt8]], listen: Double = 1.0) async throws -> [OSCMessage] {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/udp-exchange.py").path
        let hex = packets.map { $0.map { String(format: "%02x", $0) }.joined() }
        var command = ["python3", script, "--to", to ?? server.address, "--port", "\(oscPort)", "--listen", "\(listen)"]
        if let source { command += ["--source", source] }
        let (status, output) = try await lab.run(in: client, command + hex, timeout: .seconds(30))
        guard status == .exited(0), output.contains("sent \(packets.count)") else {
            throw NetworkLabError(description: "udp-exchange.py: \(status)\n\(output)")
        }
        return output.split(separator: "\n").flatMap { line -> [OSCMessage] in
            let f = line.split(separator: " ")
            guard f.count == 3 else { return [] }
            return OSCClient.messages(in: Self.bytes(f[2]))
        }
    }

    /// `/status` asked over loopback on the server host: its pairs by name.
    func status() async throws -> [String: OSCArgument] {
        let script = Binaries.packageRoot.appendingPathComponent("Tests/Support/udp-exchange.py").path
        let hex = OSCPacket.message(OSCMessage("/status")).encoded().map { String(format: "%02x", $0) }.joined()
        let (_, output) = try await lab.run(in: server, ["python3", script, "--to", "127.0.0.1", "--port", "\(oscPort)", "--listen", "1.0", hex])
        let reply = output.split(separator: "\n").compactMap { line -> OSCMessage? in
            let f = line.split(separator: " ")
            return f.count == 3 ? OSCClient.messages(in: Self.bytes(f[2])).first { $0.address == "/status" } : nil
        }.first
        let arguments = try #require(reply, "no /status reply: \(output)").arguments
        var pairs: [String: OSCArgument] = [:]
        for i in stride(from: 0, to: arguments.count - 1, by: 2) { pairs[arguments[i].stringValue ?? "?"] = arguments[i + 1] }
        return pairs
    }

    static func bytes(_ hex: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex, let b = UInt8(hex[i..<j], radix: 16) {
            bytes.append(b)
            i = j
        }
        return bytes
    }
}

extension NetworkLab {
    /// `run`, failing unless the command exits 0.
    func checked(in host: Host, _ command: [String]) async throws {
        let (status, output) = try await run(in: host, command)
        guard status == .exited(0) else { throw NetworkLabError(description: "\(command.joined(separator: " ")): \(status)\n\(output)") }
    }
}

extension OSCArgument {
    var intValue: Int? { if case .int32(let v) = self { Int(v) } else { nil } }
}
