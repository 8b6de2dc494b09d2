/// MIDI timecode on `midi_in` (SPEC §18): quarter-frame messages (`F1 0n`) assembled into
/// positions, full-frame messages (`F0 7F 7F 01 01 hh mm ss ff F7`) read as a standing locate.
/// By the MMA's convention the 8 pieces of a group span two frames and encode the frame on which
/// piece 0 was sent, so piece k sounds k quarter frames into that frame. A group is known whole
/// only at piece 7; until then each piece is placed on the group after the last whole one (two
/// frames on), and a group that turns out otherwise is told as what it is, at piece 7. After a
/// piece out of order nothing is placed until the next whole group.
/// Audio thread only; no allocation.
public struct MTCReader: Sendable {
    /// The nibbles of the group being received, by piece.
    var nibbles = InlineArray<8, UInt8>(repeating: 0)
    /// Pieces received of this group, in order from 0 (-1: waiting for a piece 0).
    var nextPiece = -1
    /// The label the group being received is expected to encode (the last whole one + 2
    /// frames, or a full frame's), when one is known.
    var expected: TimecodeAddress? = nil
    var rate: TimecodeRate? = nil

    public init() {}

    /// Audio thread. One MIDI message at frame `offset` of the period; a timecode point into
    /// `into` when it gives one. Returns whether the message was MTC (then it is nothing else).
    @_noLocks
    public mutating func receive(_ bytes: UnsafePointer<UInt8>, count: Int, offset: Int,
                                 into points: TimecodeObservations) -> Bool {
        if count == 2 && bytes[0] == 0xF1 {
            quarterFrame(bytes[1], offset: offset, into: points)
            return true
        }
        if count == 10 && bytes[0] == 0xF0 && bytes[1] == 0x7F && bytes[3] == 0x01 && bytes[4] == 0x01 && bytes[9] == 0xF7 {
            fullFrame(bytes, offset: offset, into: points)
            return true
        }
        return false
    }

    @_noLocks
    mutating func quarterFrame(_ data: UInt8, offset: Int, into points: TimecodeObservations) {
        let piece = Int(data >> 4), nibble = data & 0x0F
        if piece == 0 {
            nextPiece = 0
        } else if piece != nextPiece {
            // Out of order (reverse play, a lost message): nothing is placed until a group is
            // whole again, so a lost piece cannot put a point two frames off the line.
            nextPiece = -1
            expected = nil
            return
        }
        nibbles[piece] = nibble
        nextPiece &+= 1
        if piece == 7 {
            nextPiece = -1
            let code = (nibbles[7] >> 1) & 0x03
            let groupRate = TimecodeRate(rawValue: code) ?? .fps30
            let label = TimecodeAddress(hours: Int(nibbles[6] | (nibbles[7] & 0x01) << 4),
                                        minutes: Int(nibbles[4] | (nibbles[5] & 0x03) << 4),
                                        seconds: Int(nibbles[2] | (nibbles[3] & 0x03) << 4),
                                        frames: Int(nibbles[0] | (nibbles[1] & 0x01) << 4))
            guard label.isInRange(rate: groupRate) else { return }
            rate = groupRate
            points.append(TimecodeObservation(label: label, quarters: 7, offset: offset, dropFrame: groupRate == .fps2997DropFrame,
                                              rate: groupRate))
            expected = TimecodeAddress(frameNumber: label.frameNumber(rate: groupRate) &+ 2, rate: groupRate)
            return
        }
        guard let expected, let rate else { return }
        points.append(TimecodeObservation(label: expected, quarters: piece, offset: offset, dropFrame: rate == .fps2997DropFrame,
                                          rate: rate))
    }

    @_noLocks
    mutating func fullFrame(_ bytes: UnsafePointer<UInt8>, offset: Int, into points: TimecodeObservations) {
        let code = (bytes[5] >> 5) & 0x03
        let frameRate = TimecodeRate(rawValue: code) ?? .fps30
        let label = TimecodeAddress(hours: Int(bytes[5] & 0x1F), minutes: Int(bytes[6] & 0x3F), seconds: Int(bytes[7] & 0x3F),
                                    frames: Int(bytes[8] & 0x1F))
        guard label.isInRange(rate: frameRate) else { return }
        rate = frameRate
        expected = label
        nextPiece = -1
        points.append(TimecodeObservation(label: label, quarters: 0, offset: offset, dropFrame: frameRate == .fps2997DropFrame,
                                          rate: frameRate, stands: true))
    }
}
