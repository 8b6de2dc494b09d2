import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bound UDP socket. Receives on the control thread; sends from the control and publisher
/// threads (`sendto` on one UDP socket is safe from several threads).
public final class UDPSocket: @unchecked Sendable {
    public let fd: Int32
    /// The local address, with the port the kernel chose when bound to port 0.
    public let address: SocketAddress
    /// The multicast group this socket joined (Multicast.swift); nil for a unicast address.
    public private(set) var membership: MulticastMembership?

    /// Binds `address`; a multicast group is bound, then joined on `interface` (SPEC §12).
    public init(bindingTo address: SocketAddress, multicastInterface interface: MulticastInterface? = nil) throws(SocketError) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var one: Int32 = 1
        if address.isIPv6 {
            // Only IPv6 on this socket; IPv4 has its own.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        // A generous receive buffer absorbs bursts while the control thread is busy.
        // SO_RCVBUF is capped by net.core.rmem_max (208 KiB on many hosts: ~10 ms of a
        // 50,000 message/s flood); SO_RCVBUFFORCE passes the cap where we may (root,
        // CAP_NET_ADMIN), SO_RCVBUF otherwise.
        var size: Int32 = 8 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var bound = address
        if address.isMulticast {
            guard let interface else {
                Glibc.close(fd)
                throw SocketError(operation: "bind \(address)", code: EINVAL,
                               detail: "a multicast group needs --multicast-interface (the interface to join it on)")
            }
            Self.prepareForGroup(fd, address)
            bound = address.scoped(to: interface.index)
        }
        let rc = bound.withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw SocketError(operation: "bind \(address)", code: e)
        }
        if address.isMulticast, let interface {
            let m = MulticastMembership(group: Self.localAddress(of: fd) ?? address, interface: interface)
            let e = Self.membership(fd, m, join: true)
            guard e == 0 else {
                Glibc.close(fd)
                throw SocketError(operation: "join \(address) on \(interface.name)", code: e)
            }
            membership = m
        }
        self.fd = fd
        // Port 0 binds an ephemeral port: read back the real one.
        self.address = Self.localAddress(of: fd) ?? address
    }

    /// Leaves the multicast group, if this socket joined one (closing the socket would too;
    /// leaving first says so on the network at once, with an IGMP/MLD leave).
    public func leaveGroup() {
        guard let m = membership else { return }
        _ = Self.membership(fd, m, join: false)
        membership = nil
    }

    /// A socket connected to `destination` without an explicit bind: `connect` binds it to an
    /// ephemeral port on the local address the route to `destination` uses (127.0.0.1 or ::1
    /// for a loopback subscriber), so paramd never listens on a wildcard address for feedback.
    private init(connectedTo destination: SocketAddress) throws(SocketError) {
        let fd = socket(destination.isIPv6 ? AF_INET6 : AF_INET,
                        Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        let rc = destination.withSockaddr { connect(fd, $0, $1) }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw SocketError(operation: "connect \(destination)", code: e)
        }
        self.fd = fd
        self.address = Self.localAddress(of: fd) ?? destination
    }

    deinit { Glibc.close(fd) }

    /// The address a socket is bound to (`getsockname`).
    private static func localAddress(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // Unsafe: the kernel writes any family's sockaddr into storage sized for all of them.
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage) : nil
    }

    /// Datagrams the kernel dropped on this socket because its receive buffer was full (the
    /// `drops` column of /proc/net/udp and udp6 for this socket's inode); nil where unknown.
    /// Control thread; reads /proc, so call it on request, not per packet.
    public var kernelDrops: Int? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let inode = String(info.st_ino)
        for table in ["/proc/self/net/udp", "/proc/self/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count >= 13, fields[9] == inode { return Int(fields[12]) }
            }
        }
        return nil
    }

    /// Receives one datagram into `buffer` without blocking. nil when none waits.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> (Int, SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // Unsafe: as in `localAddress`; the datagram goes into the caller's buffer, at most its count.
        let n = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, &length)
            }
        }
        guard n >= 0, let from = SocketAddress(storage) else { return nil }
        return (n, from)
    }

    /// Receives one datagram into `buffer`, sleeping in `Poll` until one comes or `timeout`
    /// has passed (nil then). Blocks the calling thread.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, waitingUpTo timeout: Duration) -> (Int, SocketAddress)? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var fds = [Poll.readable(fd)]
        while true {
            if let datagram = receive(into: buffer) { return datagram }
            let left = clock.now.duration(to: deadline)
            if left <= .zero { return nil }
            Poll.wait(&fds, seconds: Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18)
        }
    }

    /// Sends one datagram. Returns errno on failure (ECONNREFUSED when a previous datagram to
    /// that address was refused), 0 on success.
    @discardableResult
    public func send(_ bytes: [UInt8], to destination: SocketAddress) -> Int32 {
        let n = bytes.withUnsafeBytes { raw in
            destination.withSockaddr { sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, $1) }
        }
        return n < 0 ? errno : 0
    }
}

extension UDPSocket {
    /// A socket connected to one subscriber, so that a refusal (ICMP port unreachable) comes
    /// back as ECONNREFUSED on a later send and the subscriber can be dropped.
    public convenience init(connectingTo destination: SocketAddress) throws(SocketError) {
        try self.init(connectedTo: destination)
    }

    /// Sends on a connected socket. 0 on success, errno otherwise.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Int32 {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        return n < 0 ? errno : 0
    }
}
