/// Everything the audio thread needs to start one animation, validated and clamped on the
/// control side. Fixed size, so it crosses the ring without allocation.
public struct AnimationSpec: Sendable, BitwiseCopyable {
    /// The new model value, already clamped to the parameter's range.
    public var target: Double
    /// The requested duration in seconds of one pass (a physical spring replaces it by its
    /// settle time).
    public var seconds: Double
    public var curve: TimingCurve
    public var domain: ValueDomain
    /// Start value; NaN means "the sounding value" (the usual, jump-free case).
    public var from: Double = .nan
    /// Initial velocity in parameter units per second; NaN means the curve's own.
    public var velocity: Double = .nan
    /// Passes to play: 1 plays once; fractional counts stop part-way; `.infinity` never ends.
    public var repeatCount: Double = 1
    /// Each pass plays forward then back.
    public var autoreverses = false
    /// `mode additive`: the animation in flight runs out as an offset under this one.
    public var additive = false
    /// The user's `id`, echoed in this animation's `/done`; nil when none was given.
    public var tag: Int32? = nil
    /// A member of this scene recall (SPEC §13), or of none. Members of one recall that start
    /// on the same frame with the same seconds, curve, repeat and autoreverse share one curve
    /// evaluation per frame; the recall is echoed in each member's `done`.
    public var recall: RecallGroup? = nil
    /// A pass's length in beats when the duration was given in musical time (SPEC §14): the
    /// animation then advances in beats and re-times when the tempo changes; `seconds` holds
    /// its length at the tempo it was sent at. nil: in seconds.
    public var beats: Double? = nil

    public init(target: Double, seconds: Double, curve: TimingCurve, domain: ValueDomain) {
        self.target = target
        self.seconds = seconds
        self.curve = curve
        self.domain = domain
    }

    /// `recall`'s number, 0 for none: the spelling the control side and the `done` event use
    /// (`Event.done`'s `group`) until they take `recall` too.
    @inlinable public var group: UInt32 {
        get { recall?.number ?? 0 }
        set { recall = newValue == 0 ? nil : RecallGroup(newValue) }
    }

    /// Realtime-safe. The length in beats when given in musical time and positive, else nil.
    @inlinable public var musicalBeats: Double? {
        if let beats, beats > 0 { return beats }
        return nil
    }

    /// Realtime-safe. Whether it ends anywhere but on its target (or never ends).
    @inlinable public var endsAwayFromTarget: Bool {
        autoreverses || repeatCount != repeatCount.rounded(.down) || repeatCount.isInfinite
    }
}

/// How keyframe values are interpolated (`CAKeyframeAnimation.calculationMode`).
public enum KeyframeCalculation: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    case linear, discrete, cubic, paced

    public init?(name: String) {
        switch name {
        case "linear": self = .linear
        case "discrete": self = .discrete
        case "cubic": self = .cubic
        case "paced": self = .paced
        default: return nil
        }
    }
}

/// A keyframe animation (SPEC §4.3) in fixed-size storage: at most 32 values.
public struct KeyframeSpec: Sendable, BitwiseCopyable {
    public static var capacity: Int { 32 }
    public var count: Int = 0
    /// Values, clamped to the parameter's range.
    public var values = InlineArray<32, Double>(repeating: 0)
    /// Key times in [0, 1], non-decreasing, first 0, last 1.
    public var times = InlineArray<32, Double>(repeating: 0)
    /// One curve per segment (`count - 1` of them).
    public var curves = InlineArray<31, TimingCurve>(repeating: .linear)
    public var calculation: KeyframeCalculation = .linear
    public var seconds: Double = 0
    /// The length in beats when given in musical time (as `AnimationSpec.beats`); nil: seconds.
    public var beats: Double? = nil
    public var domain: ValueDomain = .linear
    public var repeatCount: Double = 1
    public var autoreverses = false
    /// The user's `id`, echoed in this animation's `/done`; nil when none was given.
    public var tag: Int32? = nil

    public init() {}
}

/// A parameter bound to `morph` (SPEC §13): from the frame the binding applies, it sounds at
/// every frame the point m of the way from `from` to `to` in `domain`, m being `morph`'s value
/// at that frame. It glides in from what it sounded over `glideSeconds` along `glideCurve` (a
/// crossfade from the value held at bind to the bound value), so it never jumps.
public struct MorphBinding: Sendable, BitwiseCopyable {
    /// The member's value in the `from` scene (m = 0), clamped to its range.
    public var from: Double
    /// Its value in the `to` scene (m = 1), clamped to its range.
    public var to: Double
    public var domain: ValueDomain
    public var glideSeconds: Double
    public var glideCurve: TimingCurve

    public init(from: Double, to: Double, domain: ValueDomain, glideSeconds: Double, glideCurve: TimingCurve) {
        self.from = from
        self.to = to
        self.domain = domain
        self.glideSeconds = glideSeconds
        self.glideCurve = glideCurve
    }
}

/// When a command takes effect.
public enum StartTime: Sendable, BitwiseCopyable, Equatable {
    /// At the first frame not yet rendered.
    case immediately
    /// At the frame whose time on the JACK clock is this NTP time (an OSC time tag).
    case at(OSCTimeTag)
    /// At the frame where this timecode frame begins (SPEC §18): a cue.
    case timecode(TimecodeCue)
}

/// The one table of commands from the control thread to the audio thread. `Command` is it
/// with its keyframes inline, as the controller makes it; `QueuedCommand.Payload` is it with
/// the keyframes left in a slot of the queue's store (`CommandQueue`), as it crosses the ring.
/// A new command is a case here (with its line in `parameter` and `storingKeyframes`), the
/// controller's route that makes it, and `Renderer.apply` that runs it.
public enum CommandTable<Keyframes: BitwiseCopyable & Sendable>: Sendable, BitwiseCopyable {
    case animate(ParameterID, AnimationSpec)
    case keyframes(ParameterID, Keyframes)
    /// Freeze at the sounding value; the target becomes that value.
    case stop(ParameterID)
    /// A declared parameter comes into its slot, or changes range or CV scaling there (a
    /// reloaded config, SPEC §8): the animations it had end with `finished` 0, and it sounds
    /// `setup.value` clamped to the new range, from the frame the command applies on.
    case declare(ParameterID, SlotSetup)
    /// A declared parameter leaves its slot: its animations end with `finished` 0 and it is
    /// no longer rendered.
    case undeclare(ParameterID)
    /// The parameter follows `morph` (`MorphBinding`); its target is the bound value at
    /// `morph`'s target. Any other command for it (animate, keyframes, stop, declare,
    /// undeclare) unbinds it first; an animation then starts from what it sounds.
    case bind(ParameterID, MorphBinding)
    /// The parameter stays where it sounds; its target becomes that value, reported back with
    /// a `TargetUpdate` as a `stop` does.
    case unbind(ParameterID)
    /// Starts the parameter's modulator (SPEC §15), or replaces it continuing from its phase.
    case modulate(ParameterID, ModulatorSpec)
    /// Animates the modulator's depth (its target 0…1); nothing without a running modulator.
    case modulateDepth(ParameterID, AnimationSpec)
    /// The modulator's depth falls to 0 over the fade, then it ends.
    case stopModulator(ParameterID, fadeSeconds: Double)
    /// A take's cue for one member (SPEC §17): arm or disarm recording, join or leave a player.
    case take(ParameterID, TakeCue)

    /// Realtime-safe.
    @inlinable public var parameter: ParameterID {
        switch self {
        case .animate(let p, _), .keyframes(let p, _), .stop(let p), .declare(let p, _), .undeclare(let p),
             .bind(let p, _), .unbind(let p), .modulate(let p, _), .modulateDepth(let p, _), .stopModulator(let p, _),
             .take(let p, _): p
        }
    }

    /// The same command with its keyframes (if it has any) replaced by what `store` returns
    /// for them: where the queue keeps them.
    @inlinable
    public func storingKeyframes<Stored>(_ store: (Keyframes) -> Stored) -> CommandTable<Stored> {
        switch self {
        case .animate(let p, let spec): .animate(p, spec)
        case .keyframes(let p, let keyframes): .keyframes(p, store(keyframes))
        case .stop(let p): .stop(p)
        case .declare(let p, let setup): .declare(p, setup)
        case .undeclare(let p): .undeclare(p)
        case .bind(let p, let binding): .bind(p, binding)
        case .unbind(let p): .unbind(p)
        case .modulate(let p, let spec): .modulate(p, spec)
        case .modulateDepth(let p, let spec): .modulateDepth(p, spec)
        case .stopModulator(let p, let seconds): .stopModulator(p, fadeSeconds: seconds)
        case .take(let p, let cue): .take(p, cue)
        }
    }

    /// Realtime-safe. An animation's spec (not keyframes'), else nil.
    @inlinable public var animation: AnimationSpec? {
        if case .animate(_, let spec) = self { return spec }
        return nil
    }

    /// Realtime-safe. The keyframes of a keyframe animation, else nil.
    @inlinable public var keyframeTrack: Keyframes? {
        if case .keyframes(_, let keyframes) = self { return keyframes }
        return nil
    }

    /// Realtime-safe. Whether it starts an animation (basic or keyframes), which ends with a `done`.
    @inlinable public var startsAnimation: Bool {
        switch self {
        case .animate, .keyframes: true
        default: false
        }
    }

    /// Realtime-safe. Whether it is a take's cue (SPEC §17).
    @inlinable public var isTakeCue: Bool {
        if case .take = self { return true }
        return false
    }

    /// Realtime-safe. Whether it sets the parameter's target as a take records it (SPEC §17):
    /// an animation, keyframes or a stop.
    @inlinable public var isLiveAction: Bool {
        switch self {
        case .animate, .keyframes, .stop: true
        default: false
        }
    }
}

/// A command as the controller makes it: keyframes inline.
public typealias Command = CommandTable<KeyframeSpec>

public struct TimedCommand: Sendable, BitwiseCopyable {
    public var command: Command
    public var start: StartTime
    /// Added to the start (the `delay` option).
    public var delaySeconds: Double
    /// The control side's sequence number of the command that set this parameter's target;
    /// echoed when the audio side moves the target itself (see `TargetUpdate`).
    public var serial: UInt32
    /// When it starts in musical time: beats added after `delaySeconds`, then the grid it
    /// starts on (`BeatPlacement`).
    public var placement: BeatPlacement

    public init(_ command: Command, start: StartTime = .immediately, delaySeconds: Double = 0, serial: UInt32 = 0,
                placement: BeatPlacement = .none) {
        self.command = command
        self.start = start
        self.delaySeconds = delaySeconds
        self.serial = serial
        self.placement = placement
    }
}

/// What the audio thread reports to the publisher.
public enum Event: Sendable, BitwiseCopyable, Equatable {
    /// The value sounding at the last frame of a period in which the parameter moved.
    case value(ParameterID, Double)
    /// An animation ended: ran to its end (`finished`) or was interrupted. `value` is the
    /// exact value sounding when it ended; `tag` is its user's `id`, if it had one; `group` is
    /// the scene recall it was a member of (`AnimationSpec.group`), 0 when none.
    case done(ParameterID, finished: Bool, value: Double, tag: Int32?, group: UInt32)
}

/// The audio side moved a parameter's target itself — a `stop` froze it, or an animation ended
/// away from its target (autoreverse, fractional repeat) and the parameter rests where it
/// ended instead of jumping. The control side adopts `value` as its model value if `serial`
/// is still the last command it sent for that parameter.
public struct TargetUpdate: Sendable, BitwiseCopyable, Equatable {
    public var parameter: ParameterID
    public var value: Double
    public var serial: UInt32
    public init(parameter: ParameterID, value: Double, serial: UInt32) {
        self.parameter = parameter
        self.value = value
        self.serial = serial
    }
}

/// What the audio side needs to render a declared parameter in a slot: its range, the value it
/// sounds when it arrives, and how its CV port (if any) is scaled. `BitwiseCopyable`, so it
/// crosses the command ring.
public struct SlotSetup: Sendable, BitwiseCopyable {
    public var minimum: Double
    public var maximum: Double
    public var value: Double
    @usableFromInline var output: ParameterOutput

    /// Control thread.
    public init(_ spec: ParameterSpec, value: Double) {
        minimum = spec.minimum
        maximum = spec.maximum
        self.value = spec.clamp(value)
        output = ParameterOutput(spec)
    }
}
