/// One running animation of one parameter, placed on the audio thread's frame clock.
///
/// A pass of N frames that starts at frame s sounds `curve(k/N)` at frame s + k: its start
/// value at s, its target at s + N (SPEC §4.1). Repeats play further passes (an autoreversing
/// pass plays forward then back, 2N frames); the animation lasts `totalFrames` and then rests
/// on the value at its end — its target, unless it ends reversed or part-way.
public struct Animation: Sendable, BitwiseCopyable {
    public var startFrame: UInt64
    /// Frames of one (forward) pass.
    public var passFrames: Int64
    /// Frames until it ends; `Int64.max` for an endless one.
    public var totalFrames: Int64
    @usableFromInline var inversePass: Double
    public var autoreverses: Bool
    @usableFromInline var fromEncoded: Double
    @usableFromInline var deltaEncoded: Double
    /// The value a full forward pass lands on, clamped to the parameter's range.
    public var target: Double
    public var curve: TimingCurve
    @usableFromInline var state: CurveState
    public var domain: ValueDomain
    public var isKeyframes: Bool
    /// The user's `id`, echoed in its `/done`; nil when none was given.
    public var tag: Int32?
    /// The scene recall it is a member of (`AnimationSpec.group`), echoed in its `done`; 0: none.
    public var group: UInt32 = 0
    /// The renderer's shared curve this member reads its eased values from (`SharedCurves`);
    /// -1: it evaluates its own.
    @usableFromInline var sharedCurve: Int16 = -1
    /// Given in musical time (SPEC §14): the timeline's beat at `startFrame` and a forward
    /// pass's length in beats, so a tempo change re-times it (Animation+Tempo.swift). NaN: in
    /// seconds, never re-timed.
    public var startBeat: Double = .nan
    public var passBeats: Double = .nan

    /// Realtime-safe. Converts seconds to frames, rounded to the nearest frame.
    @inlinable static func frames(_ seconds: Double, sampleRate: Double) -> Int64 {
        let f = seconds * sampleRate + 0.5
        // Durations are validated on the control side (≤ 24 h); guard the conversion anyway.
        return f >= 1 ? (f < 9e15 ? Int64(f) : 9_000_000_000_000_000) : 0
    }

    /// Realtime-safe. Total frames for `passes` passes (`.infinity`: endless).
    @inlinable static func total(passFrames: Int64, repeatCount: Double, autoreverses: Bool) -> Int64 {
        if repeatCount.isInfinite || repeatCount >= 1e9 { return passFrames > 0 ? Int64.max : 0 }
        let perRepeat = Double(passFrames) * (autoreverses ? 2 : 1)
        let t = perRepeat * repeatCount + 0.5
        return t >= 1 ? (t < 9e18 ? Int64(t) : Int64.max) : 0
    }

    /// Realtime-safe. A basic animation from `from` (value space).
    @_noLocks
    public init(from: Double, spec: AnimationSpec, startFrame: UInt64, sampleRate: Double, velocity: Double) {
        var state = CurveState()
        let seconds = spec.curve.prepare(requestedSeconds: spec.seconds, velocity: velocity, state: &state)
        let pass = Self.frames(seconds, sampleRate: sampleRate)
        switch spec.curve {
        case .spring, .uiKitSpring:
            // A spring runs on its own time axis: make frame k exactly k/sampleRate seconds
            // of spring time, whatever the rounding of its length to whole frames.
            if pass > 0 { state.springSpanSeconds = Double(pass) / sampleRate }
        default:
            break
        }
        let fromEncoded = spec.domain.encode(from)
        self.init(startFrame: startFrame, passFrames: pass, repeatCount: spec.repeatCount, autoreverses: spec.autoreverses,
                  domain: spec.domain, fromEncoded: fromEncoded, deltaEncoded: spec.domain.encode(spec.target) - fromEncoded,
                  target: spec.target, curve: spec.curve, state: state, isKeyframes: false, tag: spec.tag)
        group = spec.group
    }

    /// Realtime-safe. A keyframe animation; its values live in the parameter's `KeyframeTrack`.
    @_noLocks
    public init(keyframes spec: KeyframeSpec, startFrame: UInt64, sampleRate: Double) {
        self.init(startFrame: startFrame, passFrames: Self.frames(spec.seconds, sampleRate: sampleRate),
                  repeatCount: spec.repeatCount, autoreverses: spec.autoreverses, domain: spec.domain,
                  fromEncoded: 0, deltaEncoded: 0, target: spec.values[spec.count - 1], curve: .linear,
                  state: CurveState(), isKeyframes: true, tag: spec.tag)
    }

    /// Realtime-safe. The timing shared by basic and keyframe animations.
    @_noLocks
    init(startFrame: UInt64, passFrames pass: Int64, repeatCount: Double, autoreverses: Bool, domain: ValueDomain,
         fromEncoded: Double, deltaEncoded: Double, target: Double, curve: TimingCurve, state: CurveState,
         isKeyframes: Bool, tag: Int32?) {
        self.startFrame = startFrame
        self.passFrames = pass
        self.totalFrames = Self.total(passFrames: pass, repeatCount: repeatCount, autoreverses: autoreverses)
        self.inversePass = pass > 0 ? 1 / Double(pass) : 0
        self.autoreverses = autoreverses
        self.domain = domain
        self.fromEncoded = fromEncoded
        self.deltaEncoded = deltaEncoded
        self.target = target
        self.curve = curve
        self.state = state
        self.isKeyframes = isKeyframes
        self.tag = tag
    }

    /// Realtime-safe. Progress within its pass at `offset` frames after the start
    /// (0 ≤ offset ≤ totalFrames), reversed on the backward half of an autoreversing pass.
    @inlinable @inline(__always)
    public func progress(atOffset offset: Int64) -> Double {
        if passFrames <= 0 { return 1 }
        var pass = offset / passFrames
        var within = offset - pass * passFrames
        if within == 0 && offset > 0 && offset >= totalFrames {
            // The very end of a pass: it ends on that pass's last position, not the next
            // pass's first.
            pass -= 1
            within = passFrames
        }
        let p = within == passFrames ? 1 : Double(within) * inversePass
        return autoreverses && pass & 1 == 1 ? 1 - p : p
    }

    /// Realtime-safe. The (unclamped) value `offset` frames after the start, for
    /// 0 ≤ offset ≤ totalFrames; the value at `totalFrames` is where it rests.
    @_noLocks @inline(__always)
    public mutating func value(atOffset offset: Int64, track: inout KeyframeTrack) -> Double {
        let p = progress(atOffset: offset)
        if isKeyframes { return domain.decode(track.encodedValue(at: p)) }
        if p >= 1 { return target }
        let eased = curve.value(at: p, state: &state)
        return domain.decode(fromEncoded + deltaEncoded * eased)
    }

    /// Realtime-safe. Whether its final value is its target.
    @inlinable public var endsOnTarget: Bool {
        totalFrames != Int64.max && progress(atOffset: totalFrames) >= 1
    }
}
