#if canImport(Glibc)
import Glibc
#endif

// Multicast control (SPEC §12): `--bind 239.1.2.3` (or `ff15::…`) with
// `--multicast-interface IF`. The socket is bound to the group address itself — never to a
// wildcard — so it receives only datagrams sent to that group on that port, and paramd opens
// nothing else to the network. Control thread.

extension SocketAddress {
    /// 224.0.0.0/4 or ff00::/8.
    public var isMulticast: Bool {
        switch host {
        case .v4(let addr): UInt32(bigEndian: addr) >> 28 == 0xE
        case .v6(let hi, _, _): UInt64(bigEndian: hi) >> 56 == 0xFF
        }
    }

    /// The same address scoped to interface `index` (IPv6 only: a link-local group such as
    /// `ff02::…` can only be bound with its interface).
    func scoped(to index: UInt32) -> SocketAddress {
        guard case .v6(let hi, let lo, _) = host else { return self }
        return SocketAddress(host: .v6(hi, lo, scope: index), port: port)
    }
}

/// A network interface named by `--multicast-interface`.
public struct MulticastInterface: Equatable, Sendable {
    public let name: String
    public let index: UInt32

    /// nil when the host has no interface of that name.
    public init?(named name: String) {
        guard !name.isEmpty else { return nil }
        let index = if_nametoindex(name)
        guard index != 0 else { return nil }
        self.name = name
        self.index = index
    }
}

/// The group a socket joined, so that it can leave it.
public struct MulticastMembership: Sendable {
    public let group: SocketAddress
    public let interface: MulticastInterface
}

// Linux values the Glibc module may not carry (linux/in.h, linux/in6.h).
private let ipMulticastAll: Int32 = 49       // IP_MULTICAST_ALL
private let ipv6MulticastAll: Int32 = 29     // IPV6_MULTICAST_ALL (Linux 4.20)
private let ipv6AddMembership: Int32 = 20    // IPV6_ADD_MEMBERSHIP = IPV6_JOIN_GROUP
private let ipv6DropMembership: Int32 = 21   // IPV6_DROP_MEMBERSHIP = IPV6_LEAVE_GROUP

extension UDPSocket {
    /// Options a group socket needs before `bind`: SO_REUSEADDR, so that several receivers on
    /// one host (two paramds, or paramd beside a monitoring tool) can bind the same group and
    /// port and each gets every datagram (Linux delivers a multicast datagram to every socket
    /// bound to it; SO_REUSEADDR is what lets the second bind succeed). IP_MULTICAST_ALL off:
    /// only the memberships of this socket deliver to it, so a group joined on another
    /// interface by another program does not reach paramd through the back door.
    static func prepareForGroup(_ fd: Int32, _ group: SocketAddress) {
        var one: Int32 = 1, zero: Int32 = 0
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if group.isIPv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), ipv6MulticastAll, &zero, size)
        } else {
            setsockopt(fd, Int32(IPPROTO_IP), ipMulticastAll, &zero, size)
        }
    }

    /// Joins (`join`) or leaves the group on the interface: IP_ADD_MEMBERSHIP with `ip_mreqn`,
    /// IPV6_JOIN_GROUP with `ipv6_mreq`.
    static func membership(_ fd: Int32, _ m: MulticastMembership, join: Bool) -> Int32 {
        switch m.group.host {
        case .v4(let addr):
            var request = ip_mreqn()
            request.imr_multiaddr.s_addr = addr
            request.imr_address.s_addr = 0
            request.imr_ifindex = Int32(m.interface.index)
            let option = join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP
            let rc = setsockopt(fd, Int32(IPPROTO_IP), option, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
            return rc == 0 ? 0 : errno
        case .v6(let hi, let lo, _):
            var request = ipv6_mreq()
            request.ipv6mr_multiaddr = SocketAddress.in6(hi, lo)
            request.ipv6mr_interface = m.interface.index
            let rc = setsockopt(fd, Int32(IPPROTO_IPV6), join ? ipv6AddMembership : ipv6DropMembership,
                                &request, socklen_t(MemoryLayout<ipv6_mreq>.size))
            return rc == 0 ? 0 : errno
        }
    }
}
