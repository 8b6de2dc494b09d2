/// A command's start at a timecode (SPEC §18), as it crosses the ring: the label it waits for and
/// the locate it was sent in (`TimecodeClock.epoch`). A command of an older locate is dropped: the
/// control side sends again what the new position needs. Eight bytes, as an OSC time tag, so
/// `StartTime` and the command ring stay their size.
public struct TimecodeCue: Sendable, BitwiseCopyable, Equatable {
    /// hours << 24 | minutes << 16 | seconds << 8 | frames.
    @usableFromInline var packedLabel: UInt32
    public var epoch: UInt32

    public init(_ label: TimecodeAddress, epoch: UInt32) {
        packedLabel = UInt32(label.hours) << 24 | UInt32(label.minutes) << 16 | UInt32(label.seconds) << 8 | UInt32(label.frames)
        self.epoch = epoch
    }

    public var label: TimecodeAddress {
        @_noLocks get {
            TimecodeAddress(hours: Int(packedLabel >> 24), minutes: Int(packedLabel >> 16 & 0xFF), seconds: Int(packedLabel >> 8 & 0xFF),
                            frames: Int(packedLabel & 0xFF))
        }
    }
}

extension StartTime {
    /// The cue, when this start is a timecode's.
    @inlinable public var timecodeCue: TimecodeCue? {
        if case .timecode(let cue) = self { return cue }
        return nil
    }
}

extension ScheduledCommand {
    /// The frame a timecode cue began on when it joins in the middle (earlier than the frame it
    /// is applied on); nil for any other command, which starts where it is applied.
    /// (`time`, unused by a timecode's command, holds it.)
    @inline(__always) var begun: UInt64? {
        timed.start.timecodeCue != nil ? time : nil
    }
}
