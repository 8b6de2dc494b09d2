#if canImport(Glibc)
import Glibc
#endif

/// One address of a network interface with its prefix length (`10.77.0.1/24 on eth0`), as
/// `getifaddrs` lists them: what the default `allow` of SPEC §16 is made of.
public struct InterfaceAddress: Equatable, Sendable {
    public let interface: String
    public let address: SocketAddress
    /// Leading one bits of the netmask.
    public let prefixLength: Int

    /// Every IPv4 and IPv6 address of every interface that is up; empty if `getifaddrs` fails.
    public static func all() -> [InterfaceAddress] {
        var head: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&head) == 0 else { return [] }
        defer { freeifaddrs(head) }
        var found: [InterfaceAddress] = []
        var entry = head
        while let e = entry {
            defer { entry = e.pointee.ifa_next }
            guard e.pointee.ifa_flags & UInt32(IFF_UP) != 0, let addr = e.pointee.ifa_addr, let mask = e.pointee.ifa_netmask else { continue }
            guard let address = socketAddress(addr), let netmask = socketAddress(mask) else { continue }
            found.append(InterfaceAddress(interface: String(cString: e.pointee.ifa_name), address: address,
                                          prefixLength: leadingOnes(netmask.host)))
        }
        return found
    }

    /// Copies a `sockaddr` of either family into a `SocketAddress`.
    static func socketAddress(_ pointer: UnsafeMutablePointer<sockaddr>) -> SocketAddress? {
        var storage = sockaddr_storage()
        let family = Int32(pointer.pointee.sa_family)
        let size = family == AF_INET ? MemoryLayout<sockaddr_in>.size : family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : 0
        guard size > 0 else { return nil }
        // Unsafe: getifaddrs gives a sockaddr of the size its family says; copied whole.
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size)) }
        return SocketAddress(storage)
    }

    static func leadingOnes(_ host: SocketAddress.Host) -> Int {
        switch host {
        case .v4(let mask): (~UInt32(bigEndian: mask)).leadingZeroBitCount
        case .v6(let hi, let lo, _):
            UInt64(bigEndian: hi) == .max ? 64 + (~UInt64(bigEndian: lo)).leadingZeroBitCount : (~UInt64(bigEndian: hi)).leadingZeroBitCount
        }
    }
}
