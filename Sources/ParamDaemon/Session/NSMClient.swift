import Foundation
import Logging
import ParamCore
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

// paramd under a session manager (SPEC §11): the socket to the NSM server and the start-up
// before `open`. The protocol itself is `NSMClientProtocol` (ParamCore/Session), pure and
// unit-tested; this file does its I/O. Control thread (the main thread, before and after it
// becomes the daemon's loop): no thread of its own, the socket joins the control loop's poll.

/// The session manager's end: one UDP socket of paramd's, bound to the local address the route
/// to the server uses (127.0.0.1 for a server on this machine) and an ephemeral port, that
/// sends to the server named by `NSM_URL` and to no one else, and takes datagrams from that
/// server only. Every message to the server leaves from this socket, as the API requires (the
/// server tells its clients apart by their return address).
final class NSMClient {
    let url: NSMServerURL
    let server: SocketAddress
    let socket: UDPSocket
    var machine: NSMClientProtocol
    let log: Logger
    private var strangersLogged = 0
    /// Messages that came in the same datagrams as the `open`, for the daemon to take.
    var backlog: [OSCMessage] = []

    /// nil when `NSM_URL` is unset or empty (no session management: nothing changes), and when
    /// it cannot be used — the API has a client then proceed without session management,
    /// which the log says.
    static func fromEnvironment(_ environment: [String: String], executable: String, log: Logger) -> NSMClient? {
        guard let text = environment["NSM_URL"], !text.isEmpty else { return nil }
        do {
            let url = try NSMServerURL.parse(text)
            return try NSMClient(url: url, executable: executable, log: log)
        } catch {
            log.warning("NSM_URL: \(error); running without session management")
            return nil
        }
    }

    private init(url: NSMServerURL, executable: String, log: Logger) throws(NSMSetupError) {
        self.url = url
        self.log = log
        server = try Self.resolve(url)
        let local = try Self.localAddress(towards: server)
        do {
            socket = try UDPSocket(bindingTo: SocketAddress(host: local.host, port: 0))
        } catch {
            throw NSMSetupError(description: "cannot open a socket for the session manager: \(error)")
        }
        machine = NSMClientProtocol(applicationName: "paramd", executable: executable, pid: getpid())
    }

    var fd: Int32 { socket.fd }

    /// Sends to the server. False when the datagram could not leave (the server is unreachable).
    @discardableResult
    func send(_ message: OSCMessage) -> Bool {
        let code = socket.send(message.encoded(), to: server)
        if code != 0 {
            log.warning("cannot send \(message.address) to the session manager at \(url): \(String(cString: strerror(code)))")
            return false
        }
        log.debug("NSM → \(message.address) \(message.arguments.map(Self.describe).joined(separator: " "))")
        return true
    }

    /// Every message waiting from the server. Datagrams from anywhere else are dropped (the
    /// first few logged); a packet that does not decode is logged and dropped.
    func receiveAll() -> [OSCMessage] {
        var messages: [OSCMessage] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { buffer.deallocate() }
        var count = 0
        while count < 256, let (n, sender) = socket.receive(into: buffer) {
            count += 1
            guard isServer(sender) else {
                if strangersLogged < 5 {
                    strangersLogged += 1
                    log.warning("dropped a datagram from \(sender) on the session manager's socket (only \(url) may send there)")
                }
                continue
            }
            do {
                messages += Self.flatten(try OSCPacket.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<n])))
            } catch {
                log.warning("a malformed packet from the session manager: \(error)")
            }
        }
        for m in messages {
            log.debug("NSM ← \(m.address) \(m.arguments.map(Self.describe).joined(separator: " "))")
        }
        return messages
    }

    /// The server answers from the address paramd sent to; a server that names itself by a
    /// host name on this machine (127.0.1.1 on Debian) may answer from 127.0.0.1. Same port,
    /// and the same host or both on loopback.
    private func isServer(_ sender: SocketAddress) -> Bool {
        sender.port == server.port && (sender.host == server.host || (sender.isLoopback && server.isLoopback))
    }

    /// Logs what the machine says and sends what it sends; returns the outputs that need the
    /// caller (`open`, `save`, `runWithoutSession`), in order.
    func carryOut(_ outputs: [NSMClientProtocol.Output]) -> [NSMClientProtocol.Output] {
        var left: [NSMClientProtocol.Output] = []
        for output in outputs {
            switch output {
            case .send(let message): send(message)
            case .note(let text): log.info("NSM: \(text)")
            case .warn(let text): log.warning("NSM: \(text)")
            case .open, .save, .runWithoutSession: left.append(output)
            }
        }
        return left
    }

    // MARK: Addresses

    /// The server's address: a numeric host as it is, else the first IPv4 address the name
    /// resolves to, else the first IPv6 one (nsmd, through liblo, listens on IPv4).
    private static func resolve(_ url: NSMServerURL) throws(NSMSetupError) -> SocketAddress {
        let found: [SocketAddress]
        do {
            found = try Resolve.addresses(of: url.host, port: url.port)
        } catch {
            throw NSMSetupError(description: "\(error)")
        }
        guard let chosen = found.first(where: { !$0.isIPv6 }) ?? found.first else {
            throw NSMSetupError(description: "'\(url.host)' resolves to no IPv4 or IPv6 address")
        }
        return chosen
    }

    /// The local address the kernel would send to `server` from: a throwaway socket is
    /// connected (no datagram leaves) and asked. Binding to it, not to a wildcard address,
    /// keeps paramd off every other interface.
    private static func localAddress(towards server: SocketAddress) throws(NSMSetupError) -> SocketAddress {
        do {
            return try UDPSocket(connectingTo: server).address
        } catch {
            throw NSMSetupError(description: "no route to the session manager at \(server): \(error.reason)")
        }
    }

    private static func flatten(_ packet: OSCPacket) -> [OSCMessage] {
        switch packet {
        case .message(let m): [m]
        case .bundle(_, let elements): elements.flatMap(flatten)
        }
    }

    private static func describe(_ argument: OSCArgument) -> String {
        switch argument {
        case .string(let s): "\"\(s)\""
        case .int32(let i): "\(i)"
        default: "\(argument)"
        }
    }
}

struct NSMSetupError: Error, CustomStringConvertible {
    let description: String
}
