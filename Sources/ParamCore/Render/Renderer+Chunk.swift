/// One chunk of the period, as named steps over the owners: `morph` (and its modulator), the
/// animations of the five, the bindings, the modulators, declared parameters and CV ports, then
/// the signal path's mix. Each step renders what moves into its scratch chunk; a parameter at
/// rest (no layer) is its value on every frame and is not written there, so an idle period
/// touches next to no memory.
extension Renderer {
    /// Realtime-safe. Frames `first ..< first + count` (at most `restingSpan`; `chunkFrames`
    /// while anything moves). Inputs without a buffer are silence. Out of line (a call a
    /// chunk): the period's named function in profiles and in `audio-path.order`.
    @_noLocks @inline(never)
    mutating func renderChunk(first: UInt64, count: Int,
                              in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                              cv: UnsafePointer<UnsafeMutablePointer<Float>?>?, offset: Int) {
        let steady = SteadySignal(signalPath)
        if renderFusedIfLinear(first: first, count: count, in1: in1, in2: in2, out1: out1, out2: out2, cv: cv) { return }
        // `morph` first: bound parameters are computed from its values of this chunk.
        let morphMoves = renderMorph(first: first, count: count)
        let bindingsMove = morph.move(from: first, morphMoves: morphMoves)
        let chunks = signal.chunks
        if bindingsMove && !morphMoves { chunks.morph.update(repeating: params[ParameterID.morph.index].value, count: count) }
        // Which of the five are in their chunks (`rendered`), and which of those change in it.
        var (rendered, moving) = renderSignalAnimations(first: first, count: count)
        if bindingsMove {
            let bound = morph.renderSignalPath(first: first, count: count, chunks: chunks, params: params, curves: curves.table)
            rendered.insert(bound)
            moving.insert(bound)
        }
        if !modulators.active.isEmpty {
            let modulated = modulators.modulateSignalPath(first: first, count: count, rendered: rendered, chunks: chunks,
                                                          params: params, sampleRate: sampleRate, timeline: timeline)
            rendered.insert(modulated)
            moving.insert(modulated)
        }
        if slots.declaredCount > 0 || cv != nil {
            renderDeclaredAndCV(first: first, count: count, cv: cv, offset: offset, rendered: rendered,
                                morphMoves: morphMoves, bindingsMove: bindingsMove)
        }
        signal.mix(count: count, steady: steady, rendered: rendered, moving: moving, sampleRate: sampleRate,
                   in1: in1, in2: in2, out1: out1, out2: out2)
    }

    /// Realtime-safe. `morph` over the chunk into its scratch chunk, modulated there, when it
    /// moves or is modulated. Whether it did (bound parameters then read the chunk).
    @_noLocks @inline(__always)
    mutating func renderMorph(first: UInt64, count: Int) -> Bool {
        let m = ParameterID.morph.index
        let chunk = signal.chunks.morph
        let modulated = modulators.modulates(m)
        let moves = params[m].layerCount > 0 || modulated
        if params[m].layerCount > 0 {
            _ = params[m].render(into: chunk, first: first, count: count, reporter: reporter, shared: curves.table)
        } else if modulated {
            chunk.update(repeating: params[m].value, count: count)
        }
        if modulated { modulators.modulate(m, chunk, first: first, count: count, sampleRate: sampleRate, timeline: timeline) }
        return moves
    }

    /// Realtime-safe. The animations of the five of the signal path over the chunk, each
    /// into its scratch chunk: which were rendered, and which of those change within it.
    @_noLocks @inline(__always)
    func renderSignalAnimations(first: UInt64, count: Int) -> (rendered: RenderedParameters, moving: RenderedParameters) {
        let chunks = signal.chunks
        let r = reporter
        var rendered = RenderedParameters(), moving = RenderedParameters()
        var b = 0
        while b < ParameterID.signalPathCount {
            if params[b].layerCount > 0 {
                if params[b].render(into: chunks.chunk(b), first: first, count: count, reporter: r, shared: curves.table) {
                    moving.insert(RenderedParameters(slot: b))
                }
                rendered.insert(RenderedParameters(slot: b))
            }
            b &+= 1
        }
        return (rendered, moving)
    }

    /// Realtime-safe. Renders frames `first ..< first + count` with `SignalPath.renderFused`
    /// and returns true when its conditions hold over all of them (any number of frames: it
    /// uses no scratch); otherwise renders nothing and returns false. Out of line (a call a
    /// chunk): inlined into `renderSpan`, its mixing loop took 5 % more instructions a frame.
    @_noLocks @inline(never)
    mutating func renderFusedIfLinear(first: UInt64, count: Int,
                                      in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                      out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                      cv: UnsafePointer<UnsafeMutablePointer<Float>?>?) -> Bool {
        let signal = signalPath
        guard self.signal.fusesLinearRamps, slots.declaredCount == 0, cv == nil, let in1, let in2, signal.anyMoving,
              params[ParameterID.morph.index].layerCount == 0, morph.count == 0, modulators.active.isEmpty,
              signal[.tone].layerCount != 0 || signal[.tone].value != 0,
              let volume = signal[.volume].linearSpan(first: first, count: count),
              let tone = signal[.tone].linearSpan(first: first, count: count),
              let frequency = signal[.frequency].linearSpan(first: first, count: count),
              let pan = signal[.pan].linearSpan(first: first, count: count),
              let input = signal[.input].linearSpan(first: first, count: count) else { return false }
        self.signal.renderFused(count: count, volume: volume, tone: tone, frequency: frequency, pan: pan, input: input,
                                signal: signal, sampleRate: sampleRate, in1: in1, in2: in2, out1: out1, out2: out2)
        return true
    }
}
