import CJack
#if canImport(Glibc)
import Glibc
#endif

/// A failed JACK call: the operation (`jack_connect a → b`) and the code JACK gave, its
/// return value or, for `jack_client_open`, its `jack_status_t` bits. `reason`, when set,
/// says in words what the code means.
public struct JackError: Error, CustomStringConvertible, Sendable {
    /// What a JACK call returned. Codes a caller acts on have names.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `jack_connect`'s EEXIST: the two ports are connected already.
        public static let alreadyConnected = Code(rawValue: EEXIST)
        /// A call that returns a pointer gave NULL (`jack_port_register`).
        public static let noResult = Code(rawValue: -1)
    }

    public let operation: String
    public let code: Code
    public var reason: String?

    public init(operation: String, code: Code, reason: String? = nil) {
        self.operation = operation
        self.code = code
        self.reason = reason
    }

    public var description: String { "JACK \(operation) failed\(reason.map { ": \($0)" } ?? "") (code \(code.rawValue))" }
}
