/// One action of a take (SPEC §17): what a message started on one member, and when, as the
/// audio side started it. 64 bytes (its stride): curves and keyframes live once per take in its palettes
/// (`Take.curves`, `Take.keyframes`), which the action names by index.
public struct TakeAction: Sendable, BitwiseCopyable, Equatable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// An animation (`AnimationSpec`): a parameter message, a recall's member, a MIDI step.
        case animate
        /// A keyframe animation, `Take.keyframes[curve]`.
        case keyframes
        /// `/<param>/stop`: freezes where it sounds.
        case stop
    }

    /// From the take's start: frames (a take in seconds) or beats (a musical take).
    public var offset: Double
    public var target: Double
    /// One pass: seconds, or beats when `inBeats`.
    public var duration: Double
    /// The `from` option; NaN: from the sounding value.
    public var from: Double
    /// The `velocity` option; NaN: the curve's own.
    public var velocity: Double
    public var repeatCount: Double
    /// The member's index in `Take.members`.
    public var member: UInt16
    /// Index in `Take.curves` (animate) or `Take.keyframes` (keyframes).
    public var curve: UInt16
    public var kind: Kind
    public var domain: ValueDomain
    public var autoreverses: Bool
    public var additive: Bool
    /// The duration was musical time: it lasts its beats on the timeline when played.
    public var inBeats: Bool

    public init(offset: Double, member: UInt16, kind: Kind, target: Double = 0, duration: Double = 0, curve: UInt16 = 0,
                domain: ValueDomain = .linear) {
        self.offset = offset
        self.target = target
        self.duration = duration
        self.from = .nan
        self.velocity = .nan
        self.repeatCount = 1
        self.member = member
        self.curve = curve
        self.kind = kind
        self.domain = domain
        self.autoreverses = false
        self.additive = false
        self.inBeats = false
    }

    /// Control thread. The action `spec` started, `curve` being its index in the take's palette.
    public init(offset: Double, member: UInt16, spec: AnimationSpec, curve: UInt16) {
        self.init(offset: offset, member: member, kind: .animate, target: spec.target, curve: curve, domain: spec.domain)
        if let beats = spec.musicalBeats {
            duration = beats
            inBeats = true
        } else {
            duration = spec.seconds
        }
        from = spec.from
        velocity = spec.velocity
        repeatCount = spec.repeatCount
        autoreverses = spec.autoreverses
        additive = spec.additive
    }

    public static func == (a: TakeAction, b: TakeAction) -> Bool {
        func same(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }
        return same(a.offset, b.offset) && same(a.target, b.target) && same(a.duration, b.duration) && same(a.from, b.from)
            && same(a.velocity, b.velocity) && same(a.repeatCount, b.repeatCount) && a.member == b.member && a.curve == b.curve
            && a.kind == b.kind && a.domain == b.domain && a.autoreverses == b.autoreverses && a.additive == b.additive
            && a.inBeats == b.inBeats
    }

    /// Realtime-safe. The animation to start, its curve read from `curves`.
    @_noLocks @inline(__always)
    func spec(curve: TimingCurve, sampleRate: Double, tempo: Double) -> AnimationSpec {
        var spec = AnimationSpec(target: target, seconds: inBeats ? duration * 60 / tempo : duration, curve: curve, domain: domain)
        spec.from = from
        spec.velocity = velocity
        spec.repeatCount = repeatCount
        spec.autoreverses = autoreverses
        spec.additive = additive
        if inBeats { spec.beats = duration }
        return spec
    }
}
