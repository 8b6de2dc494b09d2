#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 UDP address (`sockaddr_in` / `sockaddr_in6`), hashable, so it can key
/// subscribers. Control thread.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Host: Hashable, Sendable {
        case v4(UInt32)  // network byte order
        case v6(UInt64, UInt64, scope: UInt32)
    }
    public var host: Host
    public var port: UInt16

    public var isIPv6: Bool { if case .v6 = host { true } else { false } }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch host {
        case .v4(let addr): UInt32(bigEndian: addr) >> 24 == 127
        case .v6(let hi, let lo, _): hi == 0 && lo == UInt64(1).bigEndian
        }
    }

    public init(host: Host, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// From `sockaddr_storage` as `recvfrom`, `getsockname` or `getifaddrs` fill it; nil for a
    /// family other than AF_INET and AF_INET6.
    public init?(_ storage: sockaddr_storage) {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            // Unsafe: sockaddr_storage is sized and aligned for every sockaddr; ss_family says which.
            let a = withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } }
            self.init(host: .v4(a.sin_addr.s_addr), port: UInt16(bigEndian: a.sin_port))
        case AF_INET6:
            // Unsafe: as above.
            let a = withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } }
            let (hi, lo) = Self.halves(of: a.sin6_addr)
            self.init(host: .v6(hi, lo, scope: a.sin6_scope_id), port: UInt16(bigEndian: a.sin6_port))
        default:
            return nil
        }
    }

    /// Parses a numeric IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`): `inet_pton`.
    public init?(numeric text: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(host: .v4(v4.s_addr), port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let (hi, lo) = Self.halves(of: v6)
            self.init(host: .v6(hi, lo, scope: 0), port: port)
            return
        }
        return nil
    }

    /// Lends the address as the `sockaddr` pointer and length that `bind`, `connect` and
    /// `sendto` take.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch host {
        case .v4(let addr):
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            a.sin_addr.s_addr = addr
            // Unsafe: the kernel reads a sockaddr_in through the generic sockaddr, for its length.
            return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        case .v6(let hi, let lo, let scope):
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            a.sin6_scope_id = scope
            a.sin6_addr = Self.in6(hi, lo)
            // Unsafe: as above, for a sockaddr_in6.
            return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
    }

    /// The same host with another port: where feedback goes when `/subscribe` names a port.
    public func with(port: UInt16) -> SocketAddress { SocketAddress(host: host, port: port) }

    /// The host as text (`inet_ntop`): `127.0.0.1`, `::1`.
    public var hostText: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch host {
        case .v4(let addr):
            var a = in_addr(s_addr: addr)
            inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
        case .v6(let hi, let lo, _):
            var a = Self.in6(hi, lo)
            inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { isIPv6 ? "[\(hostText)]:\(port)" : "\(hostText):\(port)" }

    /// An IPv6 address's 16 bytes as two words, in memory order (network order inside each).
    static func halves(of address: in6_addr) -> (UInt64, UInt64) {
        withUnsafeBytes(of: address) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// The two words back as an `in6_addr`.
    static func in6(_ hi: UInt64, _ lo: UInt64) -> in6_addr {
        var a = in6_addr()
        withUnsafeMutableBytes(of: &a) { raw in
            raw.storeBytes(of: hi, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: lo, toByteOffset: 8, as: UInt64.self)
        }
        return a
    }
}
