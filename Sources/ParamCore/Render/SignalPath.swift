/// The five parameters of the signal path (SPEC §2, §3) by name: the renderer's slots 0…4,
/// read and moved in place (a parameter is a few cache lines, never copied on the audio path).
@usableFromInline
struct SignalPathParameters {
    @usableFromInline let slots: UnsafeMutablePointer<AnimatedParameter>

    @inline(__always) init(_ slots: UnsafeMutablePointer<AnimatedParameter>) { self.slots = slots }

    var volume: AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots) }
        @inline(__always) nonmutating unsafeMutableAddress { slots }
    }
    var tone: AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots + 1) }
        @inline(__always) nonmutating unsafeMutableAddress { slots + 1 }
    }
    var frequency: AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots + 2) }
        @inline(__always) nonmutating unsafeMutableAddress { slots + 2 }
    }
    var pan: AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots + 3) }
        @inline(__always) nonmutating unsafeMutableAddress { slots + 3 }
    }
    var input: AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots + 4) }
        @inline(__always) nonmutating unsafeMutableAddress { slots + 4 }
    }

    /// Realtime-safe. Whether any of the five has an animation.
    @inline(__always) var anyMoving: Bool {
        volume.layerCount | tone.layerCount | frequency.layerCount | pan.layerCount | input.layerCount != 0
    }
}

/// The renderer's scratch chunks by name: `Renderer.chunkFrames` values for each of the five,
/// one for `morph` (bound parameters read it), one that declared parameters take in turn, and
/// one for a binding's glide weights.
@usableFromInline
struct ChunkScratch {
    @usableFromInline let base: UnsafeMutablePointer<Double>

    @inline(__always) init(_ base: UnsafeMutablePointer<Double>) { self.base = base }

    /// The chunk of built-in slot `slot` (0…5), or the declared parameters' one (6).
    @inline(__always) func chunk(_ slot: Int) -> UnsafeMutablePointer<Double> { base + slot * Renderer.chunkFrames }
    @inline(__always) var volume: UnsafeMutablePointer<Double> { chunk(0) }
    @inline(__always) var tone: UnsafeMutablePointer<Double> { chunk(1) }
    @inline(__always) var frequency: UnsafeMutablePointer<Double> { chunk(2) }
    @inline(__always) var pan: UnsafeMutablePointer<Double> { chunk(3) }
    @inline(__always) var input: UnsafeMutablePointer<Double> { chunk(4) }
    @inline(__always) var morph: UnsafeMutablePointer<Double> { chunk(ParameterID.morph.index) }
    @inline(__always) var declared: UnsafeMutablePointer<Double> { chunk(ParameterID.builtInCount) }
    @inline(__always) var glide: UnsafeMutablePointer<Double> { chunk(ParameterID.builtInCount + 1) }
}

/// Which of the five were rendered into their scratch chunks in a chunk (they move); the
/// others are their value on every frame.
@usableFromInline
struct RenderedParameters: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @inline(__always) @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Built-in slot `slot` (0…4).
    @inline(__always) init(slot: Int) { rawValue = 1 << UInt8(slot) }

    // Concrete members, so the audio thread never goes through `SetAlgebra`'s generic ones.
    @inline(__always) @usableFromInline init() { rawValue = 0 }
    @inline(__always) @usableFromInline var isEmpty: Bool { rawValue == 0 }
    @inline(__always) @usableFromInline func contains(_ member: RenderedParameters) -> Bool { rawValue & member.rawValue == member.rawValue }
    @inline(__always) @usableFromInline func isDisjoint(with other: RenderedParameters) -> Bool { rawValue & other.rawValue == 0 }
    @inline(__always) @usableFromInline @discardableResult
    mutating func insert(_ member: RenderedParameters) -> (inserted: Bool, memberAfterInsert: RenderedParameters) {
        let inserted = !contains(member)
        self = RenderedParameters(rawValue: rawValue | member.rawValue)
        return (inserted, member)
    }

    static var volume: RenderedParameters { RenderedParameters(rawValue: 1) }
    static var tone: RenderedParameters { RenderedParameters(rawValue: 2) }
    static var frequency: RenderedParameters { RenderedParameters(rawValue: 4) }
    static var pan: RenderedParameters { RenderedParameters(rawValue: 8) }
    static var input: RenderedParameters { RenderedParameters(rawValue: 16) }
}

/// The signal path of SPEC §2 over one chunk: the five parameters evaluated at every frame,
/// the tone, the equal-power pan and the inputs mixed into the two outputs. The loop body is
/// chosen once a chunk, by what moves and what is connected, as SuperCollider's UGens choose
/// their calc function; the per-frame arithmetic is the same in each, so the same bits.
extension Renderer {
    @inline(__always) var signalPath: SignalPathParameters { SignalPathParameters(params) }
    @inline(__always) var chunkScratch: ChunkScratch { ChunkScratch(scratch) }

    /// Realtime-safe. Frames `first ..< first + count` (at most `restingSpan`; `chunkFrames`
    /// while anything moves). Inputs without a buffer are silence.
    @_noLocks
    mutating func renderChunk(first: UInt64, count: Int,
                              in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                              cv: UnsafePointer<UnsafeMutablePointer<Float>?>?, offset: Int) {
        let chunk = chunkScratch
        let signal = signalPath
        let r = reporter
        // A parameter at rest (no layer) is its value on every frame: it is not written into
        // its scratch chunk, and the loops below take the value instead, so an idle period
        // touches next to no memory. Which ones were rendered into their chunks: `rendered`.
        let volume = signal.volume.value, tone = signal.tone.value, frequency = signal.frequency.value
        let pan = signal.pan.value, input = signal.input.value
        if renderFusedIfLinear(first: first, count: count, in1: in1, in2: in2, out1: out1, out2: out2, cv: cv) { return }
        // `morph` first: bound parameters are computed from its values of this chunk.
        let m = ParameterID.morph.index
        let morphModulated = !modulatedSlots.isEmpty && modulatedSlots.contains(m)
        let morphMoves = params[m].layerCount > 0 || morphModulated
        if params[m].layerCount > 0 {
            _ = params[m].render(into: chunk.morph, first: first, count: count, reporter: r, shared: sharedCurves)
        } else if morphModulated {
            chunk.morph.update(repeating: params[m].value, count: count)
        }
        if morphModulated { modulateChunk(m, chunk.morph, first: first, count: count) }
        let bindingsMove = bindingsMove(from: first, morphMoves: morphMoves)
        if bindingsMove && !morphMoves { chunk.morph.update(repeating: params[m].value, count: count) }
        var rendered = RenderedParameters()
        var toneMoves = false, frequencyMoves = false, panMoves = false
        if signal.volume.layerCount > 0 {
            _ = signal.volume.render(into: chunk.volume, first: first, count: count, reporter: r, shared: sharedCurves)
            rendered.insert(.volume)
        }
        if signal.tone.layerCount > 0 {
            toneMoves = signal.tone.render(into: chunk.tone, first: first, count: count, reporter: r, shared: sharedCurves)
            rendered.insert(.tone)
        }
        if signal.frequency.layerCount > 0 {
            frequencyMoves = signal.frequency.render(into: chunk.frequency, first: first, count: count, reporter: r, shared: sharedCurves)
            rendered.insert(.frequency)
        }
        if signal.pan.layerCount > 0 {
            panMoves = signal.pan.render(into: chunk.pan, first: first, count: count, reporter: r, shared: sharedCurves)
            rendered.insert(.pan)
        }
        if signal.input.layerCount > 0 {
            _ = signal.input.render(into: chunk.input, first: first, count: count, reporter: r, shared: sharedCurves)
            rendered.insert(.input)
        }
        if bindingsMove {
            var b = 0
            while b < ParameterID.signalPathCount {
                if boundSlots.contains(b) {
                    renderBound(b, into: chunk.chunk(b), first: first, count: count, morphValues: chunk.morph)
                    rendered.insert(RenderedParameters(slot: b))
                }
                b &+= 1
            }
            toneMoves = toneMoves || boundSlots.contains(ParameterID.tone.index)
            frequencyMoves = frequencyMoves || boundSlots.contains(ParameterID.frequency.index)
            panMoves = panMoves || boundSlots.contains(ParameterID.pan.index)
        }
        if !modulatedSlots.isEmpty {
            let modulated = modulateSignalPath(first: first, count: count, rendered: rendered)
            rendered.insert(modulated)
            toneMoves = toneMoves || modulated.contains(.tone)
            frequencyMoves = frequencyMoves || modulated.contains(.frequency)
            panMoves = panMoves || modulated.contains(.pan)
        }
        if declaredCount > 0 || cv != nil {
            renderDeclaredAndCV(first: first, count: count, cv: cv, offset: offset, rendered: rendered,
                                morphMoves: morphMoves, bindingsMove: bindingsMove)
        }
        let left = in1 ?? UnsafePointer(silence), right = in2 ?? UnsafePointer(silence)
        let radiansPerHz = 2 * Double.pi / sampleRate

        if !toneMoves && (rendered.contains(.tone) ? chunk.tone[0] : tone) == 0 {
            // No tone sounds: keep the phase running (phase-continuous when the tone comes
            // back) and pass the inputs through.
            if frequencyMoves {
                phase = Self.advancePhase(phase, radiansPerHz: radiansPerHz, frequencies: chunk.frequency, count: count)
            } else {
                let steadyFrequency = rendered.contains(.frequency) ? chunk.frequency[0] : frequency
                phase = SignalMath.remainder(phase + radiansPerHz * steadyFrequency * Double(count), 2 * Double.pi)
            }
            if rendered.isDisjoint(with: RenderedParameters(rawValue: RenderedParameters.volume.rawValue | RenderedParameters.input.rawValue)) {
                Self.passInputs(gain: volume * input, in1: in1, in2: in2, out1: out1, out2: out2, count: count)
            } else {
                if !rendered.contains(.volume) { chunk.volume.update(repeating: volume, count: count) }
                if !rendered.contains(.input) { chunk.input.update(repeating: input, count: count) }
                Self.passInputs(volumes: chunk.volume, inputGains: chunk.input, in1: left, in2: right,
                                out1: out1, out2: out2, count: count)
            }
        } else if rendered.isEmpty {
            // Everything at rest: a steady tone and the inputs.
            let (panLeft, panRight) = SignalMath.cosSinOfQuarter((pan + 1) * Double.pi / 4)
            phase = Self.mixSteadyTone(phase: phase, step: radiansPerHz * frequency, tone: tone, volume: volume, inputGain: input,
                                       panLeft: panLeft, panRight: panRight, in1: left, in2: right, out1: out1, out2: out2,
                                       count: count)
        } else {
            if !rendered.contains(.volume) { chunk.volume.update(repeating: volume, count: count) }
            if !rendered.contains(.tone) { chunk.tone.update(repeating: tone, count: count) }
            if !rendered.contains(.frequency) { chunk.frequency.update(repeating: frequency, count: count) }
            if !rendered.contains(.input) { chunk.input.update(repeating: input, count: count) }
            if panMoves {
                phase = Self.mixTone(phase: phase, radiansPerHz: radiansPerHz, chunk: chunk, panLeft: 0, panRight: 0,
                                     panMoves: true, in1: left, in2: right, out1: out1, out2: out2, count: count)
            } else {
                let steadyPan = rendered.contains(.pan) ? chunk.pan[0] : pan
                let (panLeft, panRight) = SignalMath.cosSinOfQuarter((steadyPan + 1) * Double.pi / 4)
                phase = Self.mixTone(phase: phase, radiansPerHz: radiansPerHz, chunk: chunk, panLeft: panLeft, panRight: panRight,
                                     panMoves: false, in1: left, in2: right, out1: out1, out2: out2, count: count)
            }
        }
    }

    /// Realtime-safe. The phase after `count` frames at per-frame frequencies, wrapped each frame.
    @_noLocks @inline(__always)
    static func advancePhase(_ start: Double, radiansPerHz: Double, frequencies: UnsafePointer<Double>, count: Int) -> Double {
        let twoPi = 2 * Double.pi
        var phase = start
        for i in 0..<count {
            phase += radiansPerHz * frequencies[i]
            if phase >= twoPi { phase -= twoPi }
        }
        return phase
    }

    /// Realtime-safe. The inputs at a steady gain, each channel chosen by whether its input is
    /// connected (the idle daemon's loop: no optional per frame, so it vectorises).
    @_noLocks @inline(__always)
    static func passInputs(gain: Double, in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                           out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>, count: Int) {
        if let in1, let in2 {
            for i in 0..<count {
                out1[i] = Float(gain * Double(in1[i]))
                out2[i] = Float(gain * Double(in2[i]))
            }
            return
        }
        let silent = Float(gain * 0)
        if let in1 { for i in 0..<count { out1[i] = Float(gain * Double(in1[i])) } } else { out1.update(repeating: silent, count: count) }
        if let in2 { for i in 0..<count { out2[i] = Float(gain * Double(in2[i])) } } else { out2.update(repeating: silent, count: count) }
    }

    /// Realtime-safe. The inputs at a moving gain (volume times input gain, per frame).
    @_noLocks @inline(__always)
    static func passInputs(volumes: UnsafePointer<Double>, inputGains: UnsafePointer<Double>,
                           in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                           out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            let gain = volumes[i] * inputGains[i]
            out1[i] = Float(gain * Double(in1[i]))
            out2[i] = Float(gain * Double(in2[i]))
        }
    }

    /// Realtime-safe. Everything at rest: a steady tone, panned, and the inputs. Returns the phase.
    @_noLocks @inline(__always)
    static func mixSteadyTone(phase start: Double, step: Double, tone: Double, volume: Double, inputGain: Double,
                              panLeft: Double, panRight: Double, in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>, count: Int) -> Double {
        let twoPi = 2 * Double.pi
        var phase = start
        for i in 0..<count {
            phase += step
            if phase >= twoPi { phase -= twoPi }
            let toneSample = SignalMath.sinOfPhase(phase) * tone
            out1[i] = Float(volume * (toneSample * panLeft + Double(in1[i]) * inputGain))
            out2[i] = Float(volume * (toneSample * panRight + Double(in2[i]) * inputGain))
        }
        return phase
    }

    /// Realtime-safe. The general body: every parameter from its chunk; the equal-power pan
    /// (left cos((pan+1)π/4), right sin) per frame when `panMoves` (a constant at each call
    /// site, so each gets its own loop), else `panLeft`/`panRight`. Returns the phase.
    @_noLocks @inline(__always)
    static func mixTone(phase start: Double, radiansPerHz: Double, chunk: ChunkScratch, panLeft: Double, panRight: Double,
                        panMoves: Bool, in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                        out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>, count: Int) -> Double {
        let twoPi = 2 * Double.pi
        let volumes = chunk.volume, tones = chunk.tone, frequencies = chunk.frequency, pans = chunk.pan
        let inputGains = chunk.input
        var phase = start
        var left = panLeft, right = panRight
        for i in 0..<count {
            phase += radiansPerHz * frequencies[i]
            if phase >= twoPi { phase -= twoPi }
            let toneSample = SignalMath.sinOfPhase(phase) * tones[i]
            if panMoves { (left, right) = SignalMath.cosSinOfQuarter((pans[i] + 1) * Double.pi / 4) }
            let volume = volumes[i]
            let inputGain = inputGains[i]
            out1[i] = Float(volume * (toneSample * left + Double(in1[i]) * inputGain))
            out2[i] = Float(volume * (toneSample * right + Double(in2[i]) * inputGain))
        }
        return phase
    }

    /// Realtime-safe. Renders frames `first ..< first + count` with `renderFused` and returns
    /// true when its conditions hold over all of them (any number of frames: it uses no
    /// scratch); otherwise renders nothing and returns false.
    @_noLocks @inline(__always)
    mutating func renderFusedIfLinear(first: UInt64, count: Int,
                                      in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                                      out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>,
                                      cv: UnsafePointer<UnsafeMutablePointer<Float>?>?) -> Bool {
        let signal = signalPath
        guard fusesLinearRamps, declaredCount == 0, cv == nil, let in1, let in2, signal.anyMoving,
              params[ParameterID.morph.index].layerCount == 0, boundCount == 0, modulatedSlots.isEmpty,
              signal.tone.layerCount != 0 || signal.tone.value != 0,
              let volume = signal.volume.linearSpan(first: first, count: count),
              let tone = signal.tone.linearSpan(first: first, count: count),
              let frequency = signal.frequency.linearSpan(first: first, count: count),
              let pan = signal.pan.linearSpan(first: first, count: count),
              let input = signal.input.linearSpan(first: first, count: count) else { return false }
        renderFused(count: count, volume: volume, tone: tone, frequency: frequency, pan: pan, input: input,
                    in1: in1, in2: in2, out1: out1, out2: out2)
        return true
    }

    /// Realtime-safe. `renderChunk` when a tone sounds, every parameter of the signal path
    /// rests or follows a plain linear ramp through the whole chunk (`AnimatedParameter
    /// .linearSpan`), both inputs have buffers and nothing is declared: the ramps are evaluated
    /// in the mixing loop itself, not written to scratch and read back, and the layers are not
    /// walked per chunk. The same arithmetic as `mixTone`, so the same bits (`LeanPathTests`
    /// compares the two).
    @_noLocks
    mutating func renderFused(count: Int, volume: LinearSpan, tone: LinearSpan, frequency: LinearSpan,
                              pan: LinearSpan, input: LinearSpan,
                              in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let signal = signalPath
        let twoPi = 2 * Double.pi
        let radiansPerHz = twoPi / sampleRate
        let panMoves = signal.pan.layerCount > 0
        var left = 0.0, right = 0.0
        if !panMoves { (left, right) = SignalMath.cosSinOfQuarter((signal.pan.value + 1) * Double.pi / 4) }
        var phase = self.phase
        var k = 0.0
        for i in 0..<count {
            phase += radiansPerHz * frequency.value(at: k)
            if phase >= twoPi { phase -= twoPi }
            let toneSample = SignalMath.sinOfPhase(phase) * tone.value(at: k)
            if panMoves {
                (left, right) = SignalMath.cosSinOfQuarter((pan.value(at: k) + 1) * Double.pi / 4)
            }
            let volumeNow = volume.value(at: k)
            let inputGain = input.value(at: k)
            out1[i] = Float(volumeNow * (toneSample * left + Double(in1[i]) * inputGain))
            out2[i] = Float(volumeNow * (toneSample * right + Double(in2[i]) * inputGain))
            k += 1
        }
        self.phase = phase
        fusedChunks &+= 1
        signal.volume.finish(volume, count: count)
        signal.tone.finish(tone, count: count)
        signal.frequency.finish(frequency, count: count)
        signal.pan.finish(pan, count: count)
        signal.input.finish(input, count: count)
    }
}
