/// A program change heard on `midi_in`, handed to the control side, which recalls the scene a
/// `[[midi]] program = N` table names (SPEC §13). `BitwiseCopyable`, so it crosses a ring.
public struct MIDIProgramChange: Sendable, BitwiseCopyable, Equatable {
    /// 1…16.
    public var channel: UInt8
    /// 0…127.
    public var program: UInt8
}
