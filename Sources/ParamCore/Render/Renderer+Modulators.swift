/// The modulators on the audio path (SPEC §15): a layer over the animated value. A modulated
/// parameter is written into its scratch chunk every chunk, at rest too, and its modulator
/// replaces those animated values by what sounds; the animated value (`AnimatedParameter
/// .value`, its target, its animations) is left as it is underneath.
extension Renderer {
    /// The timeline musical rates lock to: the renderer's own (SPEC §14), so a `/tempo` change
    /// moves every musical rate with it. Realtime-safe.
    @inline(__always)
    var modulatorTimeline: Timeline { timeline }

    /// Realtime-safe. The seed of a modulator whose spec gives none: the slot's own, so two
    /// parameters do not wobble alike, the same in every run.
    @_noLocks @inline(__always)
    static func defaultSeed(_ p: ParameterID) -> UInt64 { 0x9E37_79B9_7F4A_7C15 &* UInt64(p.index &+ 1) }

    /// Realtime-safe. `Command.modulate`: starts `p`'s modulator at `frame`, or replaces the
    /// one running, continuing from its phase. `serial`: the command's (`ModulatorMark`).
    @_noLocks
    mutating func modulate(_ p: ParameterID, _ spec: ModulatorSpec, atFrame frame: UInt64, serial: UInt32) {
        guard isRendered(p) else { return }
        let k = p.index
        modulators.serials[k] = serial
        let tempo = modulatorTimeline.tempo(at: frame)
        if modulatedSlots.contains(k) {
            modulators.entries[k].replace(with: spec, atFrame: frame, sampleRate: sampleRate, tempo: tempo,
                                          defaultSeed: Self.defaultSeed(p))
        } else {
            modulators.entries[k] = Modulator(spec, atFrame: frame, sampleRate: sampleRate, tempo: tempo,
                                              defaultSeed: Self.defaultSeed(p))
            modulators.soundingValues[k] = params[k].value
            modulatedSlots.insert(k)
        }
    }

    /// Realtime-safe. `Command.modulateDepth`: nothing when `p` has no modulator running.
    @_noLocks
    mutating func modulateDepth(_ p: ParameterID, _ spec: AnimationSpec, atFrame frame: UInt64, serial: UInt32) {
        guard modulatedSlots.contains(p.index) else { return }
        modulators.serials[p.index] = serial
        modulators.entries[p.index].animateDepth(spec, atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. `Command.stopModulator`: the depth falls to 0 over `seconds`; the slot
    /// leaves `modulatedSlots` at the end of the period its modulator ends in.
    @_noLocks
    mutating func stopModulator(_ p: ParameterID, fadeSeconds seconds: Double, atFrame frame: UInt64, serial: UInt32) {
        guard modulatedSlots.contains(p.index) else { return }
        modulators.serials[p.index] = serial
        modulators.entries[p.index].stop(fadeSeconds: seconds, atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. At a period's end, for a modulated slot `k`: its depth at the last frame
    /// rendered to `depthSnapshot` (0 once it has ended, and it then leaves `modulatedSlots`).
    @_noLocks
    mutating func publishDepth(_ k: Int) {
        let ended = modulators.entries[k].hasEnded
        depthSnapshot.publish(at: k, depth: ended ? 0 : modulators.entries[k].depth, serial: modulators.serials[k])
        if ended { modulatedSlots.remove(k) }
    }

    /// Realtime-safe. Slot `k`'s animated values of frames `first ..< first + count` in
    /// `values` become what sounds; the last is kept for the period's end.
    @_noLocks
    mutating func modulateChunk(_ k: Int, _ values: UnsafeMutablePointer<Double>, first: UInt64, count: Int) {
        let entry = modulators.entries + k
        let increment = entry.pointee.phaseIncrement(atFrame: first, sampleRate: sampleRate, timeline: modulatorTimeline)
        entry.pointee.render(values, first: first, count: count, increment: increment, layer: modulators.layers[k])
        modulators.soundingValues[k] = values[count &- 1]
    }

    /// Realtime-safe. The modulated ones of the five of the signal path, after their
    /// animations and bindings: one at rest is first written into its chunk. Returns the
    /// slots modulated, which the mix then reads from their chunks (they move).
    @_noLocks
    mutating func modulateSignalPath(first: UInt64, count: Int, rendered: RenderedParameters) -> RenderedParameters {
        var modulated = RenderedParameters()
        var b = 0
        while b < ParameterID.signalPathCount {
            if modulatedSlots.contains(b) {
                let chunk = chunkScratch.chunk(b)
                if !rendered.contains(RenderedParameters(slot: b)) { chunk.update(repeating: params[b].value, count: count) }
                modulateChunk(b, chunk, first: first, count: count)
                modulated.insert(RenderedParameters(slot: b))
            }
            b &+= 1
        }
        return modulated
    }
}

/// The renderer's per-slot modulator storage: the modulator, the layer rule (from the slot's
/// domain and range, set when the slot is filled), the value sounding at the last frame
/// rendered and the serial of the last modulator command applied (published with the depth). Allocated once on the control thread, `ParameterRegistry.capacity` slots.
@usableFromInline
struct ModulatorSlots {
    @usableFromInline let entries: UnsafeMutablePointer<Modulator>
    @usableFromInline let layers: UnsafeMutablePointer<ModulationLayer>
    @usableFromInline let soundingValues: UnsafeMutablePointer<Double>
    @usableFromInline let serials: UnsafeMutablePointer<UInt32>

    /// Control thread.
    init(capacity: Int) {
        // Bitwise-copyable: a slot is written whole before it is read, never deinitialised.
        entries = Resident.allocate(Modulator.self, capacity: capacity)
        layers = .allocate(capacity: capacity)
        layers.initialize(repeating: ModulationLayer(domain: .linear, minimum: 0, maximum: 1), count: capacity)
        soundingValues = .allocate(capacity: capacity)
        soundingValues.initialize(repeating: 0, count: capacity)
        serials = .allocate(capacity: capacity)
        serials.initialize(repeating: 0, count: capacity)
    }

    /// Control thread, once the audio thread has stopped.
    func deallocate() {
        UnsafeMutableRawPointer(entries).deallocate()  // allocated raw
        layers.deallocate()
        soundingValues.deallocate()
        serials.deallocate()
    }
}
