import Foundation
import ParamCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The server side of the NSM protocol, played by the test (Debian 12 packages no NSM server),
/// from the published NSM API 1.1.2 document: a UDP socket on 127.0.0.1 that `NSM_URL` names.
///
///     let nsm = try NSMTestServer()
///     environment["NSM_URL"] = nsm.url
///     let announce = try await nsm.expect("/nsm/server/announce")
///     try nsm.welcome()
///     try nsm.open(path: folder, clientID: "paramd.nTEST")
///
/// What it sends and receives, and how it follows nsmd: Tests/README.md, "NSMTestServer".
final class NSMTestServer: Sendable {
    let socket: UDPSocket
    /// The port the client announced from (all its messages must come from there).
    private let clientPort = Mutex<UInt16?>(nil)
    /// Messages received and not yet taken, with the port each came from.
    private let backlog = Mutex<[(OSCMessage, UInt16)]>([])
    /// Every message received, for the assertions at the end.
    private let everything = Mutex<[(OSCMessage, UInt16)]>([])

    init() throws {
        socket = try UDPSocket(.ipv4)
    }

    var url: String { "osc.udp://127.0.0.1:\(socket.port)/" }
    var client: UInt16? { clientPort.withLock { $0 } }
    /// Every message received so far (taken or not), in order.
    var received: [OSCMessage] { everything.withLock { $0.map(\.0) } }
    /// The ports every message came from.
    var senders: Set<UInt16> { Set(everything.withLock { $0.map(\.1) }) }

    /// The next message, or nil after `timeout`.
    func next(timeout: Duration = .seconds(5)) async -> OSCMessage? {
        if let first = backlog.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return first.0 }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let (bytes, port) = await socket.receiveWithSender(timeout: deadline - ContinuousClock.now) else { return nil }
            let messages = OSCClient.messages(in: bytes)
            guard !messages.isEmpty else { continue }
            everything.withLock { all in all += messages.map { ($0, port) } }
            if messages.first?.address == NSM.announce { clientPort.withLock { $0 = port } }
            backlog.withLock { queue in queue += messages.dropFirst().map { ($0, port) } }
            return messages[0]
        }
        return nil
    }

    /// Messages until one at `address` (included); throws on timeout with what came instead.
    @discardableResult
    func expect(_ address: String, timeout: Duration = .seconds(10)) async throws -> OSCMessage {
        var seen: [String] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, let m = await next(timeout: deadline - ContinuousClock.now) {
            if m.address == address { return m }
            seen.append("\(m.address) \(m.arguments)")
        }
        throw WaitError(what: "\(address) at the NSM test server (got \(seen))", timeout: timeout)
    }

    /// A `/reply` or `/error` answering `path`.
    func expectAnswer(to path: String, timeout: Duration = .seconds(10)) async throws -> OSCMessage {
        var seen: [String] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, let m = await next(timeout: deadline - ContinuousClock.now) {
            if m.address == NSM.reply || m.address == NSM.error, m.arguments.first == .string(path) { return m }
            seen.append("\(m.address) \(m.arguments)")
        }
        throw WaitError(what: "an answer to \(path) at the NSM test server (got \(seen))", timeout: timeout)
    }

    /// Whatever arrives within `window`.
    func drain(for window: Duration) async -> [OSCMessage] {
        var out: [OSCMessage] = []
        let deadline = ContinuousClock.now + window
        while ContinuousClock.now < deadline, let m = await next(timeout: deadline - ContinuousClock.now) { out.append(m) }
        return out
    }

    func send(_ message: OSCMessage) throws {
        guard let port = client else { throw SocketError(operation: "NSM test server: no client has announced", code: ENOTCONN) }
        try socket.send(message.encoded(), toPort: port)
    }

    /// The server's answer to a good announce.
    func welcome() throws {
        try send(OSCMessage(NSM.reply, [.string(NSM.announce), .string("Welcome to the test session"),
                                        .string("paramd NSM test server"), .string(":server-control:optional-gui:")]))
    }

    func open(path: String, displayName: String = "paramd", clientID: String) throws {
        try send(OSCMessage(NSM.open, [.string(path), .string(displayName), .string(clientID)]))
    }

    func save() throws { try send(OSCMessage(NSM.save)) }
}

/// The local ports of the UDP sockets process `pid` holds, with their local addresses
/// (`/proc/PID/fd` → socket inodes → `/proc/net/udp` and `udp6`). Hex address as the kernel
/// writes it: `0100007F` is 127.0.0.1, `00000000` the wildcard.
func udpSockets(of pid: pid_t) -> [(address: String, port: UInt16)] {
    let fdFolder = "/proc/\(pid)/fd"
    var inodes: Set<String> = []
    for fd in (try? FileManager.default.contentsOfDirectory(atPath: fdFolder)) ?? [] {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fdFolder + "/" + fd),
              target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst(8).dropLast()))
    }
    var found: [(String, UInt16)] = []
    for table in ["/proc/\(pid)/net/udp", "/proc/\(pid)/net/udp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, inodes.contains(String(fields[9])) else { continue }
            let local = fields[1].split(separator: ":")
            if local.count == 2, let port = UInt16(local[1], radix: 16) { found.append((String(local[0]), port)) }
        }
    }
    return found
}
