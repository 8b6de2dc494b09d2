/// A controller that moved, as `/midi/learn` hears it: the audio thread reports these while a
/// learn waits (and only then), through a small ring.
public struct MIDIControllerEvent: Sendable, BitwiseCopyable, Equatable {
    /// `.cc` (any controller not part of an NRPN sequence), `.nrpn` or `.pitchBend`.
    public var kind: MIDIKind
    /// 1…16.
    public var channel: UInt8
    /// The controller or NRPN number (0 for pitch bend).
    public var number: UInt16
    /// 0…127 for a CC, 0…16383 otherwise.
    public var value: UInt16

    public init(kind: MIDIKind, channel: UInt8, number: UInt16, value: UInt16) {
        self.kind = kind
        self.channel = channel
        self.number = number
        self.value = value
    }
}
