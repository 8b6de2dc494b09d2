import Foundation
import Synchronization
// The tests' socket is ParamSystem's, the one paramd uses; re-exported here so that every
// test file reaches it (and SocketError) without an import of its own.
@_exported import ParamSystem

#if canImport(Glibc)
import Glibc
#endif

/// ParamSystem's UDPSocket as the tests use it: bound to a loopback address (127.0.0.1 or ::1)
/// and an ephemeral port, bytes only (OSC encoding and decoding belong to ParamCore).
/// Receiving sleeps in `poll` until a datagram comes or the timeout passes.
///
///     let socket = try UDPSocket(.ipv4)
///     try socket.send(packet, toPort: paramdPort)
///     let reply = await socket.receive(timeout: .seconds(2))   // nil on timeout
extension UDPSocket {
    enum Family: Sendable { case ipv4, ipv6 }

    var family: Family { address.isIPv6 ? .ipv6 : .ipv4 }
    /// The local port this socket is bound to.
    var port: UInt16 { address.port }

    convenience init(_ family: Family = .ipv4) throws {
        try self.init(family, address: Self.loopback(family))
    }

    /// A socket bound to a given numeric address of `family` (`127.0.0.2`, `::1`) and port
    /// (0: ephemeral). For tests about where paramd sends feedback: 127.0.0.0/8 is all
    /// loopback on Linux, so 127.0.0.2 stands for "another host" without leaving the machine.
    convenience init(_ family: Family, address: String, port: UInt16 = 0) throws {
        guard let bound = SocketAddress(numeric: address, port: port), bound.isIPv6 == (family == .ipv6) else {
            throw SocketError(operation: "inet_pton \(address)", code: EINVAL)
        }
        try self.init(bindingTo: bound)
    }

    /// True when this host can bind ::1.
    static let isIPv6Available: Bool = (try? UDPSocket(.ipv6)) != nil

    /// Sends one datagram to `port` on the loopback address of this socket's family.
    func send(_ bytes: [UInt8], toPort port: UInt16) throws {
        let code = send(bytes, to: SocketAddress(numeric: Self.loopback(family), port: port)!)
        guard code == 0 else { throw SocketError(operation: "sendto port \(port)", code: code) }
    }

    /// The next datagram, or nil after `timeout`.
    func receive(timeout: Duration = .seconds(2)) async -> [UInt8]? {
        await receiveWithSender(timeout: timeout)?.bytes
    }

    /// The next datagram and the port it came from, or nil after `timeout`. The wait blocks a
    /// thread of its own: not one of the cooperative pool's, nor of Dispatch's global queues,
    /// whose width is the core count (listeners waiting in parallel would queue behind each
    /// other and see their datagrams late, in bursts).
    func receiveWithSender(timeout: Duration = .seconds(2)) async -> (bytes: [UInt8], port: UInt16)? {
        await withCheckedContinuation { done in
            Thread.detachNewThread { done.resume(returning: self.datagram(waitingUpTo: timeout)) }
        }
    }

    /// The next datagram, blocking the calling thread up to `timeout`; nil on timeout.
    func receiveBlocking(timeout: Duration = .seconds(2)) -> [UInt8]? {
        datagram(waitingUpTo: timeout)?.bytes
    }

    /// Every datagram already waiting, without waiting for more.
    func drain() -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        while let datagram = datagram(waitingUpTo: nil) { datagrams.append(datagram.bytes) }
        return datagrams
    }

    /// One datagram: waiting up to `timeout`, or only taking one already there (nil).
    private func datagram(waitingUpTo timeout: Duration?) -> (bytes: [UInt8], port: UInt16)? {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let received = bytes.withUnsafeMutableBytes { buffer in
            if let timeout { receive(into: buffer, waitingUpTo: timeout) } else { receive(into: buffer) }
        }
        guard let (count, sender) = received else { return nil }
        return (Array(bytes[0..<count]), sender.port)
    }

    fileprivate static func loopback(_ family: Family) -> String { family == .ipv4 ? "127.0.0.1" : "::1" }
}

private let handedOutPorts = Mutex<Set<UInt16>>([])

/// A UDP port that is free right now on 127.0.0.1 and, where the host has IPv6, on ::1 too (paramd
/// binds both), and that this test process has not handed out before. For paramd's `--port`.
///
/// It is chosen at random *below* the kernel's ephemeral range (ip_local_port_range), so no socket
/// that binds port 0, in this process or any other, can take it between this call and paramd's
/// bind; only an explicit bind of the same number can. And above 20000 where there is room: a
/// liblo server opened without a port (LibloDifferentialTests in this process, nsmd) binds a
/// random one of 10000–19999 explicitly, which once took a port handed out here before its bind.
func freeUDPPort() throws -> UInt16 {
    let low = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first }
        .flatMap { Int($0) } ?? 32768
    let range: Range<Int> = low > 22000 ? 20000..<low : (low > 12000 ? 10000..<low : 1024..<low)
    for _ in 0..<200 {
        let port: UInt16
        if range.count >= 1000 {
            port = UInt16(Int.random(in: range))
        } else {
            port = try UDPSocket(.ipv4).port  // no room below the ephemeral range: take one from it
        }
        guard !handedOutPorts.withLock({ $0.contains(port) }), isFreeUDPPort(port) else { continue }
        if handedOutPorts.withLock({ $0.insert(port).inserted }) { return port }
    }
    throw SocketError(operation: "freeUDPPort", code: EADDRINUSE)
}

/// True when `port` can be bound on 127.0.0.1 and (where there is IPv6) on ::1.
func isFreeUDPPort(_ port: UInt16) -> Bool {
    var families: [UDPSocket.Family] = [.ipv4]
    if UDPSocket.isIPv6Available { families.append(.ipv6) }
    for family in families where (try? UDPSocket(family, address: UDPSocket.loopback(family), port: port)) == nil {
        return false
    }
    return true
}
