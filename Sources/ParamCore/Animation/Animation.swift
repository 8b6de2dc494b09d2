/// One running animation of one parameter, placed on the audio thread's frame clock.
/// It sounds `curve(k/N)` at frame `startFrame + k`, its start value at `startFrame` and its
/// target from `startFrame + N` on (SPEC §4.1). Interpolation runs in `domain`'s space.
public struct Animation: Sendable, BitwiseCopyable {
    public var startFrame: UInt64
    public var lengthFrames: Int64
    @usableFromInline var inverseLength: Double
    @usableFromInline var fromEncoded: Double
    @usableFromInline var deltaEncoded: Double
    /// The value it lands on, clamped to the parameter's range.
    public var target: Double
    public var curve: TimingCurve
    @usableFromInline var state: CurveState
    public var domain: ValueDomain
    public var tag: Int32
    public var hasTag: Bool

    /// Realtime-safe. Prepares the curve (a physical spring fixes its own length here).
    /// `velocity` is in UIKit's unit (distance per second) or NaN.
    @inlinable
    public init(from: Double, spec: AnimationSpec, startFrame: UInt64, sampleRate: Double, velocity: Double) {
        var state = CurveState()
        let seconds = spec.curve.prepare(requestedSeconds: spec.seconds, velocity: velocity, state: &state)
        let frames = seconds * sampleRate + 0.5  // rounded to nearest by the truncation below
        // Durations are validated on the control side (≤ 24 h); guard the conversion anyway.
        let length: Int64 = frames >= 1 ? (frames < 1e15 ? Int64(frames) : Int64(1e15)) : 0
        self.startFrame = startFrame
        self.lengthFrames = length
        self.inverseLength = length > 0 ? 1 / Double(length) : 0
        self.domain = spec.domain
        self.fromEncoded = spec.domain.encode(from)
        self.deltaEncoded = spec.domain.encode(spec.target) - fromEncoded
        self.target = spec.target
        self.curve = spec.curve
        self.state = state
        self.tag = spec.tag
        self.hasTag = spec.hasTag
    }

    /// Realtime-safe. The (unclamped) value `offset` frames after the start, for
    /// 0 ≤ offset < lengthFrames.
    @inlinable @inline(__always)
    public mutating func value(atOffset offset: Int64) -> Double {
        let progress = Double(offset) * inverseLength
        let eased = curve.value(at: progress, state: &state)
        return domain.decode(fromEncoded + deltaEncoded * eased)
    }
}

/// A parameter as the audio thread owns it: its model value (`target`), its presentation
/// value (`value`, what sounds now), and the animation in flight, if any.
public struct AnimatedParameter: Sendable {
    public let id: ParameterID
    /// The value sounding at the last rendered frame, clamped to the range.
    public private(set) var value: Double
    /// The model value: where the parameter is going, or is.
    public private(set) var target: Double
    public private(set) var isAnimating = false
    @usableFromInline var animation: Animation?
    /// Set while rendering when the parameter moved in the current period.
    public var movedThisPeriod = false

    public init(id: ParameterID, value: Double) {
        self.id = id
        self.value = id.clamp(value)
        self.target = self.value
    }

    /// Realtime-safe. Starts `spec` at `frame` (the first frame of the current render call or
    /// later), from the value that sounds at that frame unless `spec.from` says otherwise.
    /// An animation in flight ends with `finished` 0.
    @_noLocks
    public mutating func start(_ spec: AnimationSpec, atFrame frame: UInt64, sampleRate: Double,
                               events: SPSCRing<Event>, dropped: AtomicCells, droppedIndex: Int) {
        var from = value
        if var running = animation {
            let offset = Int64(bitPattern: frame &- running.startFrame)
            if offset >= 0 && offset < running.lengthFrames {
                from = id.clamp(running.value(atOffset: offset))
            } else if offset >= running.lengthFrames {
                from = running.target
            }
            report(.done(id, finished: false, value: from, tag: running.tag, hasTag: running.hasTag),
                   events: events, dropped: dropped, droppedIndex: droppedIndex)
            animation = nil
        }
        if !spec.from.isNaN { from = spec.from }
        // The `velocity` option is in parameter units per second; curves take UIKit's unit,
        // the whole distance per second.
        var velocity = Double.nan
        if !spec.velocity.isNaN {
            let distance = spec.target - from
            velocity = distance != 0 ? spec.velocity / distance : 0
        }
        animation = Animation(from: from, spec: spec, startFrame: frame, sampleRate: sampleRate, velocity: velocity)
        target = spec.target
        isAnimating = true
    }

    /// Realtime-safe. Writes the values of frames `first ..< first + count` to `out`.
    /// Returns false when the parameter held one value over the whole span.
    @_noLocks @inline(__always)
    public mutating func render(into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                                events: SPSCRing<Event>, dropped: AtomicCells, droppedIndex: Int) -> Bool {
        guard var running = animation else {
            out.update(repeating: value, count: count)
            return false
        }
        var i = 0
        // Frames before a (future) start sound the current value.
        while i < count && first &+ UInt64(i) < running.startFrame {
            out[i] = value
            i &+= 1
        }
        var offset = Int64(bitPattern: first &+ UInt64(i) &- running.startFrame)
        let end = running.lengthFrames
        while i < count && offset < end {
            let v = id.clamp(running.value(atOffset: offset))
            out[i] = v
            value = v
            i &+= 1
            offset &+= 1
        }
        movedThisPeriod = true
        if i < count || offset >= end {
            // Ended: from frame start + N on it sounds its target, exactly.
            value = running.target
            while i < count {
                out[i] = value
                i &+= 1
            }
            animation = nil
            isAnimating = false
            report(.done(id, finished: true, value: value, tag: running.tag, hasTag: running.hasTag),
                   events: events, dropped: dropped, droppedIndex: droppedIndex)
        } else {
            animation = running
        }
        return true
    }

    @_noLocks @inline(__always)
    func report(_ event: Event, events: SPSCRing<Event>, dropped: AtomicCells, droppedIndex: Int) {
        if !events.push(event) { dropped.add(droppedIndex, 1) }
    }
}
