/// A parameter bound to `morph` as the audio thread keeps it (SPEC §13, `MorphBinding`): the
/// two values in its domain's space, and the glide in from what it sounded when bound.
@usableFromInline
struct BoundParameter: BitwiseCopyable {
    @usableFromInline var domain: ValueDomain = .linear
    /// `domain.encode(from)` and `domain.encode(to) − that`: the value at m is
    /// `decode(fromEncoded + deltaEncoded · m)`.
    @usableFromInline var fromEncoded = 0.0
    @usableFromInline var deltaEncoded = 0.0
    /// The glide: weight 0 → 1 along the binding's curve (an animation of 0 → 1), crossfading
    /// in the domain's space from `heldEncoded` (what sounded at bind) to the bound value.
    @usableFromInline var heldEncoded = 0.0
    @usableFromInline var glide: Animation
    /// The glide's first frame after its end (the bound value alone sounds from there).
    @usableFromInline var glideEnd: UInt64 = 0

    /// Realtime-safe. The bound value at morph value `m`, in the domain's space.
    @_noLocks @inline(__always)
    func encoded(at m: Double) -> Double { fromEncoded + deltaEncoded * m }
}

/// Morph bindings (SPEC §13): each bound parameter sounds, at every frame, the point `morph` of
/// the way between its two values, in its domain. `morph` is rendered first in each chunk
/// (`Renderer.renderChunk`), into its own scratch chunk; each bound parameter is then computed
/// from those per-frame values, so `morph`'s curve is evaluated once per frame for all of them.
/// Owned by the audio thread; the parameters themselves are the renderer's (`params`).
@usableFromInline
struct MorphBindings {
    /// By slot, the binding of each slot in `slots`.
    @usableFromInline let bindings: UnsafeMutablePointer<BoundParameter>
    @usableFromInline var slots = SlotSet()
    @usableFromInline var count = 0
    /// From this frame on, no binding glides (the frame after the last glide's end).
    @usableFromInline var glidesUntil: UInt64 = 0

    /// Control thread. `capacity` slots.
    init(capacity: Int) { bindings = Resident.allocate(BoundParameter.self, capacity: capacity) }

    /// Control thread, once the audio thread has stopped.
    func deallocate() { UnsafeMutableRawPointer(bindings).deallocate() }  // allocated raw

    /// Realtime-safe. Whether slot `k` is bound (cheap when none is).
    @_noLocks @inline(__always)
    func binds(_ k: Int) -> Bool { count > 0 && slots.contains(k) }

    /// Realtime-safe. Whether bound parameters move in the chunk from `first`: `morph` moves in
    /// it (`morphMoves`, known before it is rendered: it may end in this chunk), or a glide has
    /// not ended.
    @_noLocks @inline(__always)
    func move(from first: UInt64, morphMoves: Bool) -> Bool {
        count > 0 && (morphMoves || glidesUntil > first)
    }

    /// Realtime-safe. `p` follows `morph` from `frame` (`Command.bind`): its animations end
    /// (`finished` 0), it glides in from what it sounds, and its target is the bound value at
    /// `morph`'s target. Its glide shares a curve with the others made on this frame (`curves`).
    @_noLocks
    mutating func bind(_ p: ParameterID, _ binding: MorphBinding, atFrame frame: UInt64, serial: UInt32,
                       params: UnsafeMutablePointer<AnimatedParameter>, curves: inout SceneCurves,
                       sampleRate: Double, reporter: Reporter) {
        let k = p.index
        let now = params[k].interruptAll(atFrame: frame, reporter: reporter)
        let domain = binding.domain
        let fromEncoded = domain.encode(params[k].clamp(binding.from))
        let glideSpec = AnimationSpec(target: 1, seconds: binding.glideSeconds, curve: binding.glideCurve, domain: .linear)
        var glide = Animation(from: 0, spec: glideSpec, startFrame: frame, sampleRate: sampleRate, velocity: .nan)
        curves.joinGlide(&glide)
        let glideEnd = frame &+ UInt64(glide.totalFrames)
        bindings[k] = BoundParameter(domain: domain, fromEncoded: fromEncoded,
                                     deltaEncoded: domain.encode(params[k].clamp(binding.to)) - fromEncoded,
                                     heldEncoded: domain.encode(now), glide: glide, glideEnd: glideEnd)
        if !slots.contains(k) {
            slots.insert(k)
            count &+= 1
        }
        // Rendered through the glide's end frame, which sounds the bound value.
        if glideEnd >= glidesUntil { glidesUntil = glideEnd &+ 1 }
        let m = params[ParameterID.morph.index]
        params[k].value = glideEnd > frame ? now : params[k].clamp(domain.decode(bindings[k].encoded(at: m.value)))
        params[k].target = target(k, params: params)
        params[k].restore(serial: serial)
    }

    /// Realtime-safe. `p` stays where it sounds (`Command.unbind`, or any other command for it);
    /// its target becomes that value, reported back (with `serial`) when `report`.
    @_noLocks
    mutating func unbind(_ p: ParameterID, report: Bool, serial: UInt32, params: UnsafeMutablePointer<AnimatedParameter>,
                         reporter: Reporter) {
        let k = p.index
        guard slots.contains(k) else { return }
        slots.remove(k)
        count &-= 1
        params[k].target = params[k].value
        if report {
            params[k].restore(serial: serial)
            reporter.targetMoved(p, to: params[k].value, serial: serial)
        }
    }

    /// Realtime-safe. What bound slot `k` sounds when `morph` reaches its target.
    @_noLocks @inline(__always)
    func target(_ k: Int, params: UnsafeMutablePointer<AnimatedParameter>) -> Double {
        params[k].clamp(bindings[k].domain.decode(bindings[k].encoded(at: params[ParameterID.morph.index].target)))
    }

    /// Realtime-safe. The bound ones of the five of the signal path over frames `first ..<
    /// first + count`, each into its scratch chunk (`chunks`), from `morph`'s values of those
    /// frames. Returns the slots rendered.
    @_noLocks
    func renderSignalPath(first: UInt64, count: Int, chunks: ChunkScratch, params: UnsafeMutablePointer<AnimatedParameter>,
                          curves: SharedCurves) -> RenderedParameters {
        var rendered = RenderedParameters()
        var b = 0
        while b < ParameterID.signalPathCount {
            if slots.contains(b) {
                render(b, into: chunks.chunk(b), first: first, count: count, morphValues: chunks.morph, glideWeights: chunks.glide,
                       params: params, curves: curves)
                rendered.insert(RenderedParameters(slot: b))
            }
            b &+= 1
        }
        return rendered
    }

    /// Realtime-safe. Bound slot `k` over frames `first ..< first + count` into `out`, from
    /// `morph`'s values of those frames (`morphValues`); `glideWeights`: a chunk of scratch.
    @_noLocks
    func render(_ k: Int, into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                morphValues: UnsafePointer<Double>, glideWeights: UnsafeMutablePointer<Double>,
                params: UnsafeMutablePointer<AnimatedParameter>, curves: SharedCurves) {
        params[k].movedThisPeriod = true
        var i = 0
        if bindings[k].glideEnd > first {
            i = renderGlide(k, into: out, first: first, count: count, morphValues: morphValues, weights: glideWeights,
                            params: params, curves: curves)
        }
        // Field by field: the glide's animation, further on, stays out of the cache.
        let from = bindings[k].fromEncoded, delta = bindings[k].deltaEncoded
        let low = params[k].minimum, high = params[k].maximum
        let exp = curves.exp
        // One loop for linear, one for log and dB (a constant scale): nothing is switched on per frame.
        switch bindings[k].domain {
        case .linear:
            while i < count {
                let v = from + delta * morphValues[i]
                out[i] = RangeClamp.one(v, low, high)
                i &+= 1
            }
        case .log, .db:
            // Eight frames at a time where e^x is inline (`ExpTable.inline8`), else one.
            let scale = bindings[k].domain == .db ? ValueDomain.nepersPerDecibel : 1  // × 1 is exact
            while i < count {
                if i &+ 8 <= count {
                    let x = (from + delta * UnsafeRawPointer(morphValues + i).loadUnaligned(as: SIMD8<Double>.self)) * scale
                    if ExpTable.inline8(x) {
                        RangeClamp.store8(exp.exp8(x), low, high, to: out + i)
                        i &+= 8
                        continue
                    }
                }
                let v = exp.exp((from + delta * morphValues[i]) * scale)
                out[i] = RangeClamp.one(v, low, high)
                i &+= 1
            }
        }
        if count > 0 { params[k].value = out[count &- 1] }
    }

    /// Realtime-safe. The frames of the chunk before slot `k`'s glide ends: the crossfade, in
    /// the domain's space, from what sounded at bind to the bound value. Returns how many.
    @_noLocks
    func renderGlide(_ k: Int, into out: UnsafeMutablePointer<Double>, first: UInt64, count: Int,
                     morphValues: UnsafePointer<Double>, weights scratch: UnsafeMutablePointer<Double>,
                     params: UnsafeMutablePointer<AnimatedParameter>, curves: SharedCurves) -> Int {
        var glide = bindings[k].glide
        let start = Int64(bitPattern: first &- glide.startFrame)
        let frames = Int(min(Int64(count), glide.totalFrames &- start))
        guard frames > 0 else { return 0 }
        var weights = UnsafePointer(scratch)
        if glide.sharedCurve >= 0, let row = curves.eased(Int(glide.sharedCurve), sharers: .morphGlides,
                                                          startFrame: glide.startFrame, first: first, frames: frames) {
            weights = row
        } else {
            var i = 0
            while i < frames {
                let p = glide.progress(atOffset: start &+ Int64(i))
                scratch[i] = p >= 1 ? .nan : glide.curve.value(at: p, state: &glide.state)
                i &+= 1
            }
            bindings[k].glide.state = glide.state
        }
        let b = bindings[k]
        var i = 0
        while i < frames {
            let bound = b.encoded(at: morphValues[i])
            let w = weights[i]
            out[i] = params[k].clamp(b.domain.decode(w.isNaN ? bound : b.heldEncoded + (bound - b.heldEncoded) * w))
            i &+= 1
        }
        return frames
    }
}
