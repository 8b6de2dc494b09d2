/// The CV outputs (SPEC §8.1): `morph`'s and each declared parameter's port, and the ports of
/// the five.
extension Renderer {
    /// Realtime-safe. The declared parameters of one chunk, and every CV port: a declared
    /// parameter that does not move and has no port costs a test of its layer count; one with
    /// a port and at rest fills it with its value. A bound one follows `morph`, rendered
    /// before (`renderChunk`) into its chunk when `morphMoves`.
    @_noLocks
    mutating func renderDeclaredAndCV(first: UInt64, count: Int, cv: UnsafePointer<UnsafeMutablePointer<Float>?>?, offset: Int,
                                      rendered: RenderedParameters, morphMoves: Bool, bindingsMove: Bool) {
        let chunks = signal.chunks
        let shared = chunks.declared
        let r = reporter
        let outputs = slots.outputs
        let m = ParameterID.morph.index
        if let port = cv.flatMap({ outputs[m].scale != 0 ? $0[m] : nil }) {
            if morphMoves {  // rendered, and modulated, into its chunk
                outputs[m].write(port + offset, from: chunks.morph, count: count)
            } else {
                outputs[m].fill(port + offset, value: params[m].value, count: count)
            }
        }
        var i = 0
        while i < slots.declaredCount {
            let k = slots.declared[i].index
            let port = cv.flatMap { outputs[k].scale != 0 ? $0[k] : nil }
            // A modulated one is written into the chunk at rest too, then modulated there.
            let modulated = modulators.modulates(k)
            if params[k].layerCount == 0 {
                if bindingsMove && morph.slots.contains(k) {
                    morph.render(k, into: shared, first: first, count: count, morphValues: chunks.morph, glideWeights: chunks.glide,
                                 params: params, curves: curves.table)
                } else if modulated {
                    shared.update(repeating: params[k].value, count: count)
                } else {
                    if let port { outputs[k].fill(port + offset, value: params[k].value, count: count) }
                    i &+= 1
                    continue
                }
            } else {
                _ = params[k].render(into: shared, first: first, count: count, reporter: r, shared: curves.table)
            }
            if modulated { modulators.modulate(k, shared, first: first, count: count, sampleRate: sampleRate, timeline: timeline) }
            if let port { outputs[k].write(port + offset, from: shared, count: count) }
            i &+= 1
        }
        guard let cv else { return }
        // The five of the signal path, from their scratch, when they have a port.
        var b = 0
        while b < ParameterID.signalPathCount {
            if outputs[b].scale != 0, let port = cv[b] {
                if rendered.contains(RenderedParameters(slot: b)) {
                    outputs[b].write(port + offset, from: chunks.chunk(b), count: count)
                } else {
                    outputs[b].fill(port + offset, value: params[b].value, count: count)
                }
            }
            b &+= 1
        }
    }
}

/// What a parameter slot drives beyond the signal path, as the audio thread needs it: whether
/// it has a CV port and how values are scaled for it (SPEC §8.1).
@usableFromInline
struct ParameterOutput: Sendable, BitwiseCopyable {
    /// 0: no CV port; 1: the value in its own units; 2: 0…1 across min…max in its domain.
    @usableFromInline var scale: UInt8 = 0
    @usableFromInline var domain: ValueDomain = .linear
    /// The domain's encoding of min, and of max minus that (unit scaling).
    @usableFromInline var low = 0.0
    @usableFromInline var span = 1.0

    init() {}

    init(_ spec: ParameterSpec) {
        domain = spec.domain
        switch spec.cv {
        case nil: scale = 0
        case .value?: scale = 1
        case .unit?:
            scale = 2
            low = spec.domain.encode(spec.minimum)
            span = spec.domain.encode(spec.maximum) - low
            if !(span > 0) { span = 1 }
        }
    }

    /// Realtime-safe. One sample as the port carries it.
    @_noLocks @inline(__always)
    func sample(_ v: Double) -> Float {
        if scale == 2 {
            let u = (domain.encode(v) - low) / span
            return Float(u < 0 ? 0 : (u > 1 ? 1 : u))
        }
        return Float(v)
    }

    /// Realtime-safe.
    @_noLocks
    func write(_ port: UnsafeMutablePointer<Float>, from values: UnsafePointer<Double>, count: Int) {
        var i = 0
        if scale == 2 {
            while i < count { port[i] = sample(values[i]); i &+= 1 }
        } else {
            while i < count { port[i] = Float(values[i]); i &+= 1 }
        }
    }

    /// Realtime-safe. A parameter at rest.
    @_noLocks
    func fill(_ port: UnsafeMutablePointer<Float>, value: Double, count: Int) {
        port.update(repeating: sample(value), count: count)
    }
}
