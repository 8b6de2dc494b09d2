/// Everything the audio thread needs to start one animation, validated and clamped on the
/// control side. Fixed size, so it crosses the ring without allocation.
public struct AnimationSpec: Sendable, BitwiseCopyable {
    /// The new model value, already clamped to the parameter's range.
    public var target: Double
    /// The requested duration in seconds (a physical spring replaces it by its settle time).
    public var seconds: Double
    public var curve: TimingCurve
    public var domain: ValueDomain
    /// Start value; NaN means "the sounding value" (the usual, jump-free case).
    public var from: Double = .nan
    /// Initial velocity in parameter units per second; NaN means the curve's own.
    public var velocity: Double = .nan
    /// Echoed in this animation's `/done`.
    public var tag: Int32 = 0
    public var hasTag: Bool = false

    public init(target: Double, seconds: Double, curve: TimingCurve, domain: ValueDomain) {
        self.target = target
        self.seconds = seconds
        self.curve = curve
        self.domain = domain
    }
}

/// When a command takes effect.
public enum StartTime: Sendable, BitwiseCopyable, Equatable {
    /// At the first frame not yet rendered.
    case immediately
}

/// A command from the control thread to the audio thread.
public enum Command: Sendable, BitwiseCopyable {
    case animate(ParameterID, AnimationSpec)
}

public struct TimedCommand: Sendable, BitwiseCopyable {
    public var command: Command
    public var start: StartTime
    public init(_ command: Command, start: StartTime = .immediately) {
        self.command = command
        self.start = start
    }
}

/// What the audio thread reports to the publisher.
public enum Event: Sendable, BitwiseCopyable, Equatable {
    /// The value sounding at the last frame of a period in which the parameter moved.
    case value(ParameterID, Double)
    /// An animation ended: ran to its end (`finished`) or was interrupted. `value` is the
    /// exact value sounding when it ended.
    case done(ParameterID, finished: Bool, value: Double, tag: Int32, hasTag: Bool)
}
