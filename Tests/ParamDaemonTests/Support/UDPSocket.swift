import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

public struct SocketError: Error, CustomStringConvertible {
    public var operation: String
    public var code: Int32
    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// A UDP socket on the loopback address (127.0.0.1 or ::1), bound to an ephemeral port. Bytes only:
/// OSC encoding and decoding belong to ParamCore.
///
///     let socket = try UDPSocket(.ipv4)
///     try socket.send(packet, toPort: paramdPort)
///     let reply = await socket.receive(timeout: .seconds(2))   // nil on timeout
public final class UDPSocket: Sendable {
    public enum Family: Sendable { case ipv4, ipv6 }

    public let family: Family
    /// The local port this socket is bound to.
    public let port: UInt16
    private let fd: Int32

    public init(_ family: Family = .ipv4) throws {
        self.family = family
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        do {
            try UDPSocket.bindLoopback(fd, family: family, port: 0)
            self.port = try UDPSocket.localPort(fd)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    /// A socket bound to a given numeric address of `family` (`127.0.0.2`, `::1`) and port
    /// (0: ephemeral). For tests about where paramd sends feedback: 127.0.0.0/8 is all
    /// loopback on Linux, so 127.0.0.2 stands for "another host" without leaving the machine.
    public init(_ family: Family, address: String, port: UInt16 = 0) throws {
        self.family = family
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        do {
            let result: Int32
            switch family {
            case .ipv4:
                var a = sockaddr_in()
                a.sin_family = sa_family_t(AF_INET)
                a.sin_port = port.bigEndian
                guard inet_pton(AF_INET, address, &a.sin_addr) == 1 else { throw SocketError(operation: "inet_pton \(address)", code: EINVAL) }
                result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            case .ipv6:
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
                var a = sockaddr_in6()
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = port.bigEndian
                guard inet_pton(AF_INET6, address, &a.sin6_addr) == 1 else { throw SocketError(operation: "inet_pton \(address)", code: EINVAL) }
                result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            }
            guard result == 0 else { throw SocketError(operation: "bind \(address) port \(port)", code: errno) }
            self.port = try UDPSocket.localPort(fd)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// True when this host can bind ::1.
    public static let isIPv6Available: Bool = (try? UDPSocket(.ipv6)) != nil

    /// Sends one datagram to `port` on the loopback address of this socket's family.
    public func send(_ bytes: [UInt8], toPort port: UInt16) throws {
        let sent = UDPSocket.withLoopbackAddress(family: family, port: port) { address, length in
            bytes.withUnsafeBytes { buffer in
                sendto(fd, buffer.baseAddress, buffer.count, 0, address, length)
            }
        }
        guard sent == bytes.count else { throw SocketError(operation: "sendto port \(port)", code: errno) }
    }

    /// The next datagram, or nil after `timeout`. Polls without blocking the cooperative pool.
    public func receive(timeout: Duration = .seconds(2)) async -> [UInt8]? {
        await receiveWithSender(timeout: timeout)?.bytes
    }

    /// The next datagram and the port it came from, or nil after `timeout`.
    public func receiveWithSender(timeout: Duration = .seconds(2)) async -> (bytes: [UInt8], port: UInt16)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let datagram = receiveNow() { return datagram }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The next datagram, blocking the calling thread up to `timeout`; nil on timeout.
    public func receiveBlocking(timeout: Duration = .seconds(2)) -> [UInt8]? {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000
            + timeout.components.attoseconds / 1_000_000_000_000_000)
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        return receiveNow()?.bytes
    }

    /// Every datagram already waiting, without waiting for more.
    public func drain() -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        while let datagram = receiveNow() { datagrams.append(datagram.bytes) }
        return datagrams
    }

    private func receiveNow() -> (bytes: [UInt8], port: UInt16)? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &storage) { storagePointer in
                storagePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                }
            }
        }
        guard count >= 0 else { return nil }
        let senderPort = withUnsafeBytes(of: &storage) { raw -> UInt16 in
            // sin_port and sin6_port are both at offset 2, in network order.
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        }
        return (Array(buffer[0..<count]), senderPort)
    }

    // MARK: - sockaddr plumbing

    static func withLoopbackAddress<R>(family: Family, port: UInt16,
                                       _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    static func bindLoopback(_ fd: Int32, family: Family, port: UInt16) throws {
        if family == .ipv6 {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let result = withLoopbackAddress(family: family, port: port) { bind(fd, $0, $1) }
        guard result == 0 else { throw SocketError(operation: "bind \(family) port \(port)", code: errno) }
    }

    static func localPort(_ fd: Int32) throws -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError(operation: "getsockname", code: errno) }
        return withUnsafeBytes(of: &storage) { UInt16(bigEndian: $0.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) }
    }
}

private let handedOutPorts = Mutex<Set<UInt16>>([])

/// A UDP port that is free right now on 127.0.0.1 and, where the host has IPv6, on ::1 too (paramd
/// binds both), and that this test process has not handed out before. For paramd's `--port`.
///
/// It is chosen at random *below* the kernel's ephemeral range (ip_local_port_range), so no socket
/// that binds port 0, in this process or any other, can take it between this call and paramd's
/// bind; only an explicit bind of the same number can.
public func freeUDPPort() throws -> UInt16 {
    let low = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first }
        .flatMap { Int($0) } ?? 32768
    let range: Range<Int> = low > 12000 ? 10000..<low : 1024..<low
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
public func isFreeUDPPort(_ port: UInt16) -> Bool {
    var families: [UDPSocket.Family] = [.ipv4]
    if UDPSocket.isIPv6Available { families.append(.ipv6) }
    for family in families {
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if (try? UDPSocket.bindLoopback(fd, family: family, port: port)) == nil { return false }
    }
    return true
}
