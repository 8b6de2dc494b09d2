#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on a socket or descriptor: the operation (`bind 127.0.0.1:9000`) and
/// the `errno` it left. `detail`, when set, is said instead of `strerror(code)` (a multicast
/// group without an interface, a name that does not resolve: `gai_strerror`).
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public var detail: String?

    public init(operation: String, code: Int32, detail: String? = nil) {
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    /// Why it failed, without the operation: `detail`, else `strerror(code)`.
    public var reason: String { detail ?? String(cString: strerror(code)) }

    public var description: String { "\(operation): \(reason)" }
}
