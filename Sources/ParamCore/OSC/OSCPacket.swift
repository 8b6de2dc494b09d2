// The OSC value types. Decoding: OSCDecoder.swift; encoding: OSCEncoder.swift; reading
// arguments as numbers, names and booleans: OSCArgument+Coercion.swift; patterns:
// OSCAddressPattern.swift; time tags: OSCTimeTag+Clock.swift.

/// One OSC argument, as OSC 1.0 and its common extensions type it.
///
/// `character` is the low byte of the 32-bit word sent; `rgba` and `midi` are the 32-bit
/// big-endian word as sent (for `midi`: port id, status, data 1, data 2 from the most
/// significant byte down); `timeTag` is an NTP time tag as `OSCTimeTag`.
public enum OSCArgument: Sendable, Equatable {
    case int32(Int32)           // i
    case float32(Float)         // f
    case string(String)         // s
    case blob([UInt8])          // b
    case int64(Int64)           // h
    case timeTag(UInt64)        // t
    case double(Double)         // d
    case symbol(String)         // S
    case character(UInt8)       // c
    case rgba(UInt32)           // r
    case midi(UInt32)           // m
    case bool(Bool)             // T, F
    case null                   // N
    case impulse                // I
}

/// An OSC message: an address (or address pattern) starting with `/`, and its arguments.
public struct OSCMessage: Sendable, Equatable {
    public var address: String
    public var arguments: [OSCArgument]
    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }
}

/// NTP-format time tag: seconds since 1900 in the high 32 bits, fraction in the low 32.
/// The value 1 means "immediately".
public typealias OSCTimeTag = UInt64

/// What one datagram carries: a message, or a bundle of messages and bundles that share a
/// time tag (SPEC §4.6).
public indirect enum OSCPacket: Sendable, Equatable {
    case message(OSCMessage)
    case bundle(timeTag: OSCTimeTag, elements: [OSCPacket])
}
