/// The five parameters of the signal path (SPEC §2, §3) by name: the renderer's slots 0…4,
/// read and moved in place (a parameter is a few cache lines, never copied on the audio path).
@usableFromInline
struct SignalPathParameters {
    @usableFromInline let slots: UnsafeMutablePointer<AnimatedParameter>

    @inline(__always) init(_ slots: UnsafeMutablePointer<AnimatedParameter>) { self.slots = slots }

    /// Realtime-safe. One of the five by its id (`.volume` … `.input`, slots 0…4), in place.
    subscript(_ p: ParameterID) -> AnimatedParameter {
        @inline(__always) unsafeAddress { UnsafePointer(slots + p.index) }
        @inline(__always) nonmutating unsafeMutableAddress { slots + p.index }
    }

    /// Realtime-safe. Whether any of the five has an animation.
    @inline(__always) var anyMoving: Bool {
        self[.volume].layerCount | self[.tone].layerCount | self[.frequency].layerCount | self[.pan].layerCount
            | self[.input].layerCount != 0
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

/// The values of the five at the start of a chunk: what one at rest sounds on every frame.
@usableFromInline
struct SteadySignal {
    let volume: Double, tone: Double, frequency: Double, pan: Double, input: Double

    @inline(__always) init(_ signal: SignalPathParameters) {
        volume = signal[.volume].value
        tone = signal[.tone].value
        frequency = signal[.frequency].value
        pan = signal[.pan].value
        input = signal[.input].value
    }
}

/// The signal path of SPEC §2 and what it owns: the oscillator's phase, the scratch chunks the
/// moving parameters are rendered into, silence for an unconnected input. Its mix runs over
/// one chunk once the parameters are rendered: the tone, the equal-power pan and the inputs
/// into the two outputs. The loop body is chosen once a chunk, by what moves and what is
/// connected, as SuperCollider's UGens choose their calc function; the per-frame arithmetic is
/// the same in each, so the same bits. Owned by the audio thread; allocated on the control thread.
@usableFromInline
struct SignalPath {
    /// Oscillator phase in radians, in [0, 2π).
    @usableFromInline var phase: Double = 0
    /// Scratch: one chunk of per-frame values for each of the five parameters of the signal
    /// path, one for `morph`, one that declared parameters take in turn, one for glide weights.
    @usableFromInline let scratch: UnsafeMutablePointer<Double>
    /// `Renderer.restingSpan` frames of silence, read in place of an input port without a buffer.
    @usableFromInline let silence: UnsafeMutablePointer<Float>
    /// Whether chunks where every parameter rests or ramps linearly take `renderFused` (tests
    /// turn it off to compare with the general path).
    @usableFromInline var fusesLinearRamps = true
    /// Chunks `renderFused` rendered (tests).
    @usableFromInline var fusedChunks = 0

    /// Control thread.
    init() {
        let scratchCount = (ParameterID.builtInCount + 2) * Renderer.chunkFrames
        scratch = .allocate(capacity: scratchCount)
        scratch.initialize(repeating: 0, count: scratchCount)
        silence = .allocate(capacity: Renderer.restingSpan)
        silence.initialize(repeating: 0, count: Renderer.restingSpan)
    }

    /// Control thread, once the audio thread has stopped.
    func deallocate() {
        scratch.deallocate()
        silence.deallocate()
    }

    @inline(__always) var chunks: ChunkScratch { ChunkScratch(scratch) }

    /// Realtime-safe. The mix of one chunk of `count` frames: `rendered` says which of the
    /// five are in their scratch chunks (the others are `steady`), `moving` which of tone,
    /// frequency and pan change within it. Inputs without a buffer are silence.
    @_noLocks @inline(__always)
    mutating func mix(count: Int, steady: SteadySignal, rendered: RenderedParameters, moving: RenderedParameters,
                      sampleRate: Double, in1: UnsafePointer<Float>?, in2: UnsafePointer<Float>?,
                      out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let chunk = chunks
        let left = in1 ?? UnsafePointer(silence), right = in2 ?? UnsafePointer(silence)
        let radiansPerHz = 2 * Double.pi / sampleRate
        let volume = steady.volume, tone = steady.tone, frequency = steady.frequency, pan = steady.pan, input = steady.input
        if !moving.contains(.tone) && (rendered.contains(.tone) ? chunk.tone[0] : tone) == 0 {
            // No tone sounds: keep the phase running (phase-continuous when the tone comes
            // back) and pass the inputs through.
            if moving.contains(.frequency) {
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
            if moving.contains(.pan) {
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

    /// Realtime-safe. `renderChunk` when a tone sounds, every parameter of the signal path
    /// rests or follows a plain linear ramp through the whole chunk (`AnimatedParameter
    /// .linearSpan`), both inputs have buffers and nothing is declared: the ramps are evaluated
    /// in the mixing loop itself, not written to scratch and read back, and the layers are not
    /// walked per chunk. The same arithmetic as `mixTone`, so the same bits (`LeanPathTests`
    /// compares the two).
    @_noLocks
    mutating func renderFused(count: Int, volume: LinearSpan, tone: LinearSpan, frequency: LinearSpan,
                              pan: LinearSpan, input: LinearSpan, signal: SignalPathParameters, sampleRate: Double,
                              in1: UnsafePointer<Float>, in2: UnsafePointer<Float>,
                              out1: UnsafeMutablePointer<Float>, out2: UnsafeMutablePointer<Float>) {
        let twoPi = 2 * Double.pi
        let radiansPerHz = twoPi / sampleRate
        let panMoves = signal[.pan].layerCount > 0
        var left = 0.0, right = 0.0
        if !panMoves { (left, right) = SignalMath.cosSinOfQuarter((signal[.pan].value + 1) * Double.pi / 4) }
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
        signal[.volume].finish(volume, count: count)
        signal[.tone].finish(tone, count: count)
        signal[.frequency].finish(frequency, count: count)
        signal[.pan].finish(pan, count: count)
        signal[.input].finish(input, count: count)
    }
}
