/// A MIDI 1.0 channel message, as paramd reads and writes them (SPEC §10). JACK delivers each
/// event as one complete message with its status byte (no running status), so a message is
/// parsed from its own bytes alone. Channels are 0…15 here (1…16 in the config and OSC).
public enum MIDIMessage: Sendable, BitwiseCopyable, Equatable {
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    case noteOn(channel: UInt8, note: UInt8, velocity: UInt8)
    case noteOff(channel: UInt8, note: UInt8, velocity: UInt8)
    /// 0…16383, 8192 the centre.
    case pitchBend(channel: UInt8, value: UInt16)
    /// Two bytes on the wire: a scene recall when a `[[midi]]` table maps it (SPEC §13).
    case programChange(channel: UInt8, program: UInt8)

    /// Realtime-safe. The channel message in `bytes`, or nil for anything else (system
    /// messages, SysEx, aftertouch, a truncated or malformed message).
    @_noLocks
    public static func parse(_ bytes: UnsafePointer<UInt8>, count: Int) -> MIDIMessage? {
        guard count >= 2 else { return nil }
        let status = bytes[0]
        let d1 = bytes[1]
        guard status & 0x80 != 0, d1 & 0x80 == 0 else { return nil }
        let channel = status & 0x0F
        if status & 0xF0 == 0xC0 { return .programChange(channel: channel, program: d1) }
        guard count >= 3 else { return nil }
        let d2 = bytes[2]
        guard d2 & 0x80 == 0 else { return nil }
        switch status & 0xF0 {
        case 0xB0: return .controlChange(channel: channel, controller: d1, value: d2)
        case 0x90:
            // Note-on with velocity 0 is a note-off (MIDI 1.0).
            return d2 == 0 ? .noteOff(channel: channel, note: d1, velocity: 0) : .noteOn(channel: channel, note: d1, velocity: d2)
        case 0x80: return .noteOff(channel: channel, note: d1, velocity: d2)
        case 0xE0: return .pitchBend(channel: channel, value: UInt16(d2) << 7 | UInt16(d1))
        default: return nil
        }
    }

    /// Realtime-safe. Writes the message's three bytes into `out` (a program change's third is 0
    /// and not part of it).
    @_noLocks
    public func encode(into out: UnsafeMutablePointer<UInt8>) {
        switch self {
        case .controlChange(let c, let n, let v): out[0] = 0xB0 | (c & 0x0F); out[1] = n & 0x7F; out[2] = v & 0x7F
        case .noteOn(let c, let n, let v): out[0] = 0x90 | (c & 0x0F); out[1] = n & 0x7F; out[2] = v & 0x7F
        case .noteOff(let c, let n, let v): out[0] = 0x80 | (c & 0x0F); out[1] = n & 0x7F; out[2] = v & 0x7F
        case .pitchBend(let c, let v):
            out[0] = 0xE0 | (c & 0x0F); out[1] = UInt8(truncatingIfNeeded: v & 0x7F); out[2] = UInt8(truncatingIfNeeded: (v >> 7) & 0x7F)
        case .programChange(let c, let p): out[0] = 0xC0 | (c & 0x0F); out[1] = p & 0x7F; out[2] = 0
        }
    }

    /// Control side, tests: the three bytes.
    public var bytes: [UInt8] {
        var b: [UInt8] = [0, 0, 0]
        b.withUnsafeMutableBufferPointer { encode(into: $0.baseAddress!) }
        return b
    }
}
