import CJack

/// A port's data type, the string JACK matches types by.
public struct JackPortType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `JACK_DEFAULT_AUDIO_TYPE`: 32-bit float mono audio (and CV).
    public static let audio = JackPortType(rawValue: JACK_DEFAULT_AUDIO_TYPE)
    /// `JACK_DEFAULT_MIDI_TYPE`: raw MIDI events.
    public static let midi = JackPortType(rawValue: JACK_DEFAULT_MIDI_TYPE)
}

/// `JackPortFlags` as a Swift option set: a port's direction and kind.
public struct JackPortFlagSet: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let input = JackPortFlagSet(rawValue: UInt(JackPortIsInput.rawValue))
    public static let output = JackPortFlagSet(rawValue: UInt(JackPortIsOutput.rawValue))
    /// A port of the hardware (the dummy driver's `system:` ports too).
    public static let physical = JackPortFlagSet(rawValue: UInt(JackPortIsPhysical.rawValue))
    public static let canMonitor = JackPortFlagSet(rawValue: UInt(JackPortCanMonitor.rawValue))
    public static let terminal = JackPortFlagSet(rawValue: UInt(JackPortIsTerminal.rawValue))
}

/// A JACK port (`jack_port_t *`), ours or another client's. A plain value holding the pointer,
/// which stays valid while the port is registered and its client open. Control thread: the
/// audio path keeps the raw `pointer` and calls `jack_port_get_buffer` itself.
public struct JackPort: Hashable, @unchecked Sendable {
    public let pointer: OpaquePointer

    public init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The full name, `client:port` (`jack_port_name`).
    public var name: String { String(cString: jack_port_name(pointer)) }

    /// The data type (`jack_port_type`).
    public var type: JackPortType { JackPortType(rawValue: jack_port_type(pointer).map { String(cString: $0) } ?? "") }

    /// Direction and kind (`jack_port_flags`).
    public var flags: JackPortFlagSet { JackPortFlagSet(rawValue: UInt(bitPattern: Int(jack_port_flags(pointer)))) }

    /// How many connections the port has (`jack_port_connected`).
    public var connectionCount: Int { Int(jack_port_connected(pointer)) }

    /// Whether the port is connected to the port named `other` (`jack_port_connected_to`).
    public func isConnected(to other: String) -> Bool { jack_port_connected_to(pointer, other) != 0 }
}
