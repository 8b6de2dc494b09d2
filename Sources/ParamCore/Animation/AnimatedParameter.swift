/// A parameter as the audio thread owns it: its model value (`target`), its presentation
/// value (`value`, what sounds now), and the animations in flight.
///
/// Animations compose as UIKit's additive animations do: each layer i contributes the offset
/// `vᵢ(t) − targetᵢ`, and the parameter sounds `target + Σ offsets`. A layer that ends on its
/// target contributes 0 from then on and is removed without a jump. In `current` mode a new
/// animation interrupts every layer and starts from the sounding value; in `additive` mode it
/// starts from the previous target and the layers in flight run out under it, so neither the
/// value nor its velocity jumps.
public struct AnimatedParameter: @unchecked Sendable {
    public static var maxLayers: Int { 8 }

    // What every period reads of a parameter (range, value, target, layer count, moved) is
    // all it holds inline, 56 bytes: the five of the signal path share a cache line or two of
    // one page. Its layers and keyframe track, 3.6 KB, live in a `ParameterMotion` of their
    // own, read only while it moves (docs/PERFORMANCE.md, "Parameters off their motion").
    public let id: ParameterID
    /// Set while rendering when the parameter moved in the current period.
    public var movedThisPeriod = false
    /// The control side's serial of the command that last set `target`.
    public private(set) var serial: UInt32 = 0
    /// The range every rendered value is clamped to (the parameter's `ParameterSpec`).
    public let minimum: Double
    public let maximum: Double
    /// The value sounding at the last rendered frame, clamped to the range.
    public internal(set) var value: Double
    /// The model value: where the parameter is going, or rests.
    public internal(set) var target: Double
    public private(set) var layerCount = 0
    /// The layers and keyframe track: memory its owner (the renderer) allocated and keeps for
    /// this slot. A copy of the parameter shares it, so only one copy may animate.
    @usableFromInline let motion: UnsafeMutablePointer<ParameterMotion>
    /// Layer 0, the one a plain animation runs in: `motion`'s own, or (the renderer's
    /// parameters) one of an array of every slot's first layer, so that the five of the signal
    /// path ramping read one page of layers, not five (docs/PERFORMANCE.md, "Cold memory").
    @usableFromInline let firstLayer: UnsafeMutablePointer<Animation>

    public var isAnimating: Bool { layerCount > 0 }

    /// `motion` (and `firstLayer`, when given) must stay allocated while the parameter is used
    /// (they need not be initialised: a layer or the track is written before it is read).
    public init(id: ParameterID, minimum: Double, maximum: Double, value: Double, motion: UnsafeMutablePointer<ParameterMotion>,
                firstLayer: UnsafeMutablePointer<Animation>? = nil) {
        self.id = id
        self.motion = motion
        // `layers` is ParameterMotion's first field, and an InlineArray's elements lie in a row.
        self.firstLayer = firstLayer ?? UnsafeMutableRawPointer(motion).assumingMemoryBound(to: Animation.self)
        self.minimum = minimum
        self.maximum = maximum
        self.target = 0
        self.value = 0
        self.value = clamp(value)
        self.target = self.value
    }

    public init(id: ParameterID, spec: ParameterSpec, value: Double, motion: UnsafeMutablePointer<ParameterMotion>,
                firstLayer: UnsafeMutablePointer<Animation>? = nil) {
        self.init(id: id, minimum: spec.minimum, maximum: spec.maximum, value: value, motion: motion, firstLayer: firstLayer)
    }

    /// Realtime-safe. Layer `i` (below `maxLayers`): the first apart, the others in `motion`.
    @_noLocks @inline(__always)
    func layer(_ i: Int) -> UnsafeMutablePointer<Animation> {
        i == 0 ? firstLayer : UnsafeMutableRawPointer(motion).assumingMemoryBound(to: Animation.self) + i
    }

    /// Realtime-safe. Keeps the serial a parameter had when its slot is set up again.
    @inline(__always)
    mutating func restore(serial: UInt32) { self.serial = serial }

    /// Realtime-safe. Clamps to the range; NaN becomes the minimum.
    @inlinable @inline(__always)
    func clamp(_ v: Double) -> Double {
        if v >= maximum { return maximum }
        if v >= minimum { return v }
        return minimum
    }

    /// Realtime-safe. The value the layers sound at `frame` (not yet rendered), clamped.
    @_noLocks
    mutating func sounding(atFrame frame: UInt64) -> Double {
        var sum = target
        var i = 0
        while i < layerCount {
            let offset = min(Int64(bitPattern: frame &- self.layer(i).pointee.startFrame), self.layer(i).pointee.totalFrames)
            sum += self.layer(i).pointee.value(atOffset: offset, track: &motion.pointee.track) - self.layer(i).pointee.target
            i &+= 1
        }
        return clamp(sum)
    }

    /// Realtime-safe. Ends every layer with `finished` 0 at `frame`; returns the sounding value.
    @_noLocks
    mutating func interruptAll(atFrame frame: UInt64, reporter: Reporter) -> Double {
        let now = layerCount > 0 ? sounding(atFrame: frame) : value
        var i = 0
        while i < layerCount {
            reporter.done(id, finished: false, value: now, tag: self.layer(i).pointee.tag, group: self.layer(i).pointee.group)
            i &+= 1
        }
        layerCount = 0
        return now
    }

    /// Realtime-safe. Starts `spec` at `frame`, the next frame to render.
    @_noLocks
    public mutating func start(_ spec: AnimationSpec, atFrame frame: UInt64, sampleRate: Double,
                               serial: UInt32, reporter: Reporter, begunAt begun: UInt64? = nil) {
        // Additive composition needs every layer in flight to end on its target; otherwise
        // (or when the layers are full) it falls back to starting from the sounding value.
        var additive = spec.additive && spec.from.isNaN && layerCount > 0 && layerCount < Self.maxLayers
        var i = 0
        while additive && i < layerCount {
            if !self.layer(i).pointee.endsOnTarget || self.layer(i).pointee.isKeyframes { additive = false }
            i &+= 1
        }
        var from: Double
        if additive {
            from = target
        } else {
            from = interruptAll(atFrame: frame, reporter: reporter)
            if !spec.from.isNaN { from = spec.from }
        }
        // The `velocity` option is in parameter units per second; curves take UIKit's unit,
        // the whole distance per second.
        var velocity = Double.nan
        if !spec.velocity.isNaN {
            let distance = spec.target - from
            velocity = distance != 0 ? spec.velocity / distance : 0
        }
        // `begun`: a timecode cue joined in the middle (SPEC §18) runs as if it had started there.
        let animation = Animation(from: from, spec: spec, startFrame: min(begun ?? frame, frame), sampleRate: sampleRate, velocity: velocity)
        self.layer(layerCount).pointee = animation
        layerCount &+= 1
        target = spec.target
        self.serial = serial
    }

    /// Realtime-safe. Starts a keyframe animation at `frame`; it always interrupts (it jumps to
    /// its first value if the sound is elsewhere, as `CAKeyframeAnimation` does).
    @_noLocks
    public mutating func start(keyframes spec: KeyframeSpec, atFrame frame: UInt64, sampleRate: Double,
                               serial: UInt32, reporter: Reporter, begunAt begun: UInt64? = nil) {
        _ = interruptAll(atFrame: frame, reporter: reporter)
        motion.pointee.track = KeyframeTrack(spec)
        self.layer(0).pointee = Animation(keyframes: spec, startFrame: min(begun ?? frame, frame), sampleRate: sampleRate)
        layerCount = 1
        target = self.layer(0).pointee.target
        self.serial = serial
    }

    /// Realtime-safe. Freezes at the value sounding at `frame`; the target becomes that value.
    @_noLocks
    public mutating func stop(atFrame frame: UInt64, serial: UInt32, reporter: Reporter) {
        let now = interruptAll(atFrame: frame, reporter: reporter)
        value = now
        target = now
        self.serial = serial
        reporter.targetMoved(id, to: now, serial: serial)
    }

    /// Realtime-safe. Writes the values of frames `first ..< first + count` to `out`.
    /// Returns false when the parameter held one value over the whole span. `shared`: the
    /// renderer's shared curves, which a member of a scene recall reads its eased values from.
    @_noLocks
    public mutating func render(into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                                reporter: Reporter) -> Bool {
        render(into: out, first: first, count: count, reporter: reporter, shared: nil)
    }

    @_noLocks
    mutating func render(into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                         reporter: Reporter, shared: SharedCurves?) -> Bool {
        if layerCount == 0 {
            out.update(repeating: value, count: count)
            return false
        }
        movedThisPeriod = true
        var i = 0
        if layerCount == 1 && !self.layer(0).pointee.isKeyframes {
            // The common case, one basic animation: its frames before its end take the lean
            // path; the loop below takes the rest, the end frame included.
            i = renderOnlyLayer(into: out, first: first, count: count, shared: shared)
        }
        while i < count {
            let frame = first &+ UInt64(i)
            var sum = target
            var ended = false
            var k = 0
            while k < layerCount {
                let offset = Int64(bitPattern: frame &- self.layer(k).pointee.startFrame)
                let end = self.layer(k).pointee.totalFrames
                sum += self.layer(k).pointee.value(atOffset: offset < end ? offset : end, track: &motion.pointee.track) - self.layer(k).pointee.target
                if offset >= end { ended = true }
                k &+= 1
            }
            value = clamp(sum)
            out[i] = value
            if ended { removeEndedLayers(atFrame: frame, reporter: reporter) }
            i &+= 1
            if layerCount == 0 {
                // At rest: the rest of the span holds the value.
                if i < count { (out + i).update(repeating: value, count: count &- i) }
                break
            }
        }
        return true
    }

    /// Realtime-safe. For a parameter whose only layer is a basic animation: writes the frames
    /// of `first ..< first + count` that come before that layer's end, and returns how many.
    /// The same arithmetic as the general loop in `render` and `Animation.value(atOffset:)`,
    /// so the same values to the bit, with less around it: the pass and the position within
    /// it are counted up frame by frame instead of divided out of the offset, and nothing
    /// checks for an end that cannot come within these frames.
    @_noLocks @inline(never)
    mutating func renderOnlyLayer(into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                                  shared: SharedCurves?) -> Int {
        var layer = self.layer(0).pointee
        let start = Int64(bitPattern: first &- layer.startFrame)
        let passFrames = layer.passFrames
        guard start >= 0, passFrames > 0, start < layer.totalFrames else { return 0 }
        let frames = Int(min(Int64(count), layer.totalFrames &- start))
        var pass = start / passFrames
        var within = start &- pass &* passFrames
        let base = target
        var i = 0
        if case .linear = layer.curve, case .linear = layer.domain, !layer.autoreverses {
            return renderLinearRamp(into: out, frames: frames, within: within, passFrames: passFrames)
        }
        if layer.sharedCurve >= 0, let shared,
           renderSharedMember(into: out, first: first, frames: frames, shared: shared) {
            return frames
        }
        while i < frames {
            // `Animation.progress(atOffset:)` before the end: within < passFrames.
            let forward = Double(within) * layer.inversePass
            let p = layer.autoreverses && pass & 1 == 1 ? 1 - forward : forward
            // `Animation.value(atOffset:)`, then `render`'s sum over one layer.
            let v: Double
            if p >= 1 {
                v = layer.target
            } else {
                let eased = layer.curve.value(at: p, state: &layer.state)
                v = layer.domain.decode(layer.fromEncoded + layer.deltaEncoded * eased)
            }
            value = clamp(base + (v - layer.target))
            out[i] = value
            within &+= 1
            if within == passFrames {
                within = 0
                pass &+= 1
            }
            i &+= 1
        }
        self.layer(0).pointee.state = layer.state
        return frames
    }

    /// Realtime-safe. This parameter over frames `first ..< first + count` as one expression
    /// of the frame, for the renderer to evaluate inside its mixing loop instead of writing a
    /// scratch chunk: a parameter at rest, or one whose only layer is a linear ramp in its own
    /// units with no end, pass turn or clamp in these frames (`renderLinearRamp`'s first loop,
    /// whose conditions these are, so the values are that loop's to the bit). Nil otherwise:
    /// the general path renders it.
    @_noLocks @inline(__always)
    func linearSpan(first: UInt64, count: Int) -> LinearSpan? {
        if layerCount == 0 { return LinearSpan(resting: value) }
        guard layerCount == 1, count > 0 else { return nil }
        let layer = self.layer(0).pointee
        guard !layer.isKeyframes, !layer.autoreverses, case .linear = layer.curve, case .linear = layer.domain else { return nil }
        let start = Int64(bitPattern: first &- layer.startFrame)
        let passFrames = layer.passFrames
        guard start >= 0, passFrames > 0, start < layer.totalFrames, Int64(count) <= layer.totalFrames &- start else { return nil }
        return unclampedRamp(layer, within: start % passFrames, frames: count, passFrames: passFrames)
    }

    /// Realtime-safe. A linear ramp's frames `within ..< within + frames` of its pass as a
    /// `LinearSpan`, when no pass turns over in them and no value needs the clamp; nil
    /// otherwise. A pass shorter than 2⁴⁰ frames never reaches p = 1 before its end
    /// ((N−1)·fl(1/N) rounds below 1), so the value is base + ((from + delta·p) − end): every
    /// step rounds monotonically in p, so the first and last frames bound the rest.
    @_noLocks @inline(__always)
    func unclampedRamp(_ layer: Animation, within: Int64, frames: Int, passFrames: Int64) -> LinearSpan? {
        guard passFrames < 1 << 40, within &+ Int64(frames) <= passFrames, frames > 0 else { return nil }
        let span = LinearSpan(base: target, from: layer.fromEncoded, delta: layer.deltaEncoded, end: layer.target,
                              inverse: layer.inversePass, position: Double(within))
        let firstValue = span.value(at: 0), lastValue = span.value(at: Double(frames &- 1))
        guard firstValue >= minimum && firstValue < maximum && lastValue >= minimum && lastValue < maximum else { return nil }
        return span
    }

    /// Realtime-safe. After the renderer evaluated `span` over `count` frames: what `render`
    /// would have left (the last value; moved, if it moves).
    @_noLocks @inline(__always)
    mutating func finish(_ span: LinearSpan, count: Int) {
        guard layerCount > 0 else { return }
        movedThisPeriod = true
        value = span.value(at: Double(count &- 1))
    }

    /// Realtime-safe. `renderOnlyLayer` for a linear ramp in its own units (`linear`, domain
    /// `linear`, no autoreverse: what most control surfaces send), kept out of line so that the
    /// general loop keeps its own code. Writes `frames` frames from position `within` of the pass.
    @_noLocks @inline(never)
    mutating func renderLinearRamp(into out: UnsafeMutablePointer<Double>, frames: Int, within start: Int64, passFrames: Int64) -> Int {
        let layer = self.layer(0).pointee
        let base = target
        var within = start
        var i = 0
        // A linear ramp in its own units (what most control surfaces send): the loop below
        // with the curve (`p` itself for 0 ≤ p < 1) and the domain (identity) written out,
        // so nothing is switched on per frame. The same operations, so the same bits.
        let from = layer.fromEncoded, delta = layer.deltaEncoded, end = layer.target
        let inverse = layer.inversePass
        // `clamp` with the range in registers (`out` might alias `self` as far as the
        // compiler knows, so it would reload them every frame).
        let low = minimum, high = maximum
        var v = value
        if let span = unclampedRamp(layer, within: within, frames: frames, passFrames: passFrames) {
            // The position counted as a Double (exact: an integer below 2⁴⁰), so the loop is
            // not vectorised: the vector form steps an integer vector by constants from
            // `.rodata.cst16`, a page the period otherwise does not touch (a first touch
            // costs about a µs after the thread slept; the scalar loop's extra nanosecond a
            // frame is less, at 64- and 256-frame periods).
            var w = span.position
            while i < frames {
                out[i] = span.value(atPosition: w)
                w += 1
                i &+= 1
            }
            value = out[frames &- 1]
            return frames
        }
        while i < frames {
            let p = Double(within) * inverse
            let eased = p >= 1 ? end : from + delta * p
            let sum = base + (eased - end)
            v = RangeClamp.one(sum, low, high)
            out[i] = v
            within &+= 1
            if within == passFrames { within = 0 }
            i &+= 1
        }
        value = v
        return frames
    }

    /// Realtime-safe. Removes the layers that have reached their end at `frame` (which sounds
    /// their final values), reporting `done` 1 for each.
    @_noLocks
    mutating func removeEndedLayers(atFrame frame: UInt64, reporter: Reporter) {
        var k = 0
        while k < layerCount {
            var layer = self.layer(k).pointee
            if Int64(bitPattern: frame &- layer.startFrame) >= layer.totalFrames {
                if !layer.endsOnTarget {
                    // It rests where it ended: its final offset moves into the target, so
                    // nothing jumps. (Only the newest layer can end away from its target.)
                    let final = layer.value(atOffset: layer.totalFrames, track: &motion.pointee.track)
                    target = clamp(target + final - layer.target)
                    reporter.targetMoved(id, to: target, serial: serial)
                }
                var j = k
                while j &+ 1 < layerCount {
                    self.layer(j).pointee = self.layer(j &+ 1).pointee
                    j &+= 1
                }
                layerCount &-= 1
                reporter.done(id, finished: true, value: value, tag: layer.tag, group: layer.group)
            } else {
                k &+= 1
            }
        }
    }
}
