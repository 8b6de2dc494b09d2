// INTERFACE STUB — the OSC codec helper completes it.

/// One OSC argument, as OSC 1.0 and its common extensions type it.
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

public indirect enum OSCPacket: Sendable, Equatable {
    case message(OSCMessage)
    case bundle(timeTag: OSCTimeTag, elements: [OSCPacket])
}
