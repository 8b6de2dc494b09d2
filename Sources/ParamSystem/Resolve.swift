#if canImport(Glibc)
import Glibc
#endif

/// Name resolution: `getaddrinfo(3)` for UDP, as paramd asks it (a session manager's host).
public enum Resolve {
    /// Every IPv4 and IPv6 address `host` resolves to, in the resolver's order, each with
    /// `port`. A numeric host is itself, without asking the resolver. Throws when the name
    /// does not resolve (the error's reason is `gai_strerror`'s).
    public static func addresses(of host: String, port: UInt16) throws(SocketError) -> [SocketAddress] {
        if let numeric = SocketAddress(numeric: host, port: port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            throw SocketError(operation: "cannot resolve '\(host)'", code: rc, detail: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(first) }
        var found: [SocketAddress] = []
        // Unsafe: walks the resolver's list, valid until freeaddrinfo; each ai_addr holds ai_addrlen bytes.
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let e = entry {
            if let address = e.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: min(Int(e.pointee.ai_addrlen), raw.count)))
                }
                if let a = SocketAddress(storage) { found.append(a.with(port: port)) }
            }
            entry = e.pointee.ai_next
        }
        return found
    }
}
