/// What a take command asks of the audio side for one member (`Command.take`): every member of
/// one message gets its cue in one transaction, so they all act on the same frame (a bundle's
/// tag, `delay`, `quantize`), and a `/<param>/stop` sent before it cancels that member's part.
public struct TakeCue: Sendable, BitwiseCopyable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// Record this member: report what it sounds now and every live action on it.
        case arm
        /// Stop recording (every member): the take ends on this frame.
        case disarm
        /// Play `program` in player `slot` (the member joins the pass that starts on this frame).
        case play
        /// The member leaves player `slot`; the player ends when none is left.
        case stop
        /// Player `slot`, playing already, punches in from here: live actions silence its own for
        /// `touchFrames` after each.
        case punchIn
    }

    public var kind: Kind
    /// The player (0 ..< `TakePlayers.capacity`).
    public var slot: UInt8
    /// The recording's length: frames, or beats when `musical`; 0: until a disarm.
    public var length: Double = 0
    public var musical = false
    /// Passes to play (`.infinity`: `loop inf`).
    public var passes: Double = 1
    /// Punch-in: live actions on a member silence its own for this many frames after each (0: a
    /// live action takes the member over until the next pass).
    public var touchFrames: UInt64 = 0
    public var program: TakeProgram? = nil
    /// The recording an arm cue belongs to: a new number starts a new recording on the audio side.
    public var recording: UInt32 = 0

    public init(kind: Kind, slot: UInt8 = 0) {
        self.kind = kind
        self.slot = slot
    }
}

/// What the audio side tells the control side of takes, in the order it happened.
public enum TakeReport: Sendable, BitwiseCopyable {
    /// A member is armed on `frame`, sounding `value` (its start value).
    case armed(ParameterID, frame: UInt64, beat: Double, value: Double)
    /// A live action on an armed member, started on `frame` (`beat` on the timeline).
    case action(ParameterID, frame: UInt64, beat: Double, spec: AnimationSpec)
    /// Live keyframes on an armed member: the control side kept them by `serial`.
    case keyframes(ParameterID, frame: UInt64, beat: Double, serial: UInt32)
    /// A live stop on an armed member.
    case stopped(ParameterID, frame: UInt64, beat: Double)
    /// The recording ended on `frame` (`beat`): a disarm, or its length reached.
    case disarmed(frame: UInt64, beat: Double)
    /// Player `slot` began pass `pass` (0 first) on `frame`.
    case pass(slot: UInt8, pass: UInt32, frame: UInt64, beat: Double)
    /// Player `slot` ended: every pass played untouched (`finished`), or not. The control side
    /// frees `program` now: the audio side holds it no more.
    case ended(slot: UInt8, finished: Bool, program: TakeProgram)
}
