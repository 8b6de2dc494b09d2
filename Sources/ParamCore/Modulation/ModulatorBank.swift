/// The modulators on the audio path (SPEC §15), one per modulated slot: a layer over the
/// animated value. A modulated parameter is written into its scratch chunk every chunk, at rest
/// too, and its modulator replaces those animated values by what sounds; the animated value
/// (`AnimatedParameter.value`, its target, its animations) is left as it is underneath. At a
/// period's end each one's depth goes to its snapshot (`/mod/get`). Owned by the audio thread;
/// allocated on the control thread, `ParameterRegistry.capacity` slots.
@usableFromInline
struct ModulatorBank {
    /// Per slot: the modulator, meaningful for the slots in `active` only (bitwise-copyable: a
    /// slot is written whole before it is read, never deinitialised).
    @usableFromInline let entries: UnsafeMutablePointer<Modulator>
    /// Per slot: the layer rule, from the slot's domain and range, set when the slot is filled.
    @usableFromInline let layers: UnsafeMutablePointer<ModulationLayer>
    /// Per slot: the value sounding at the last frame rendered.
    @usableFromInline let soundingValues: UnsafeMutablePointer<Double>
    /// Per slot: the serial of the last modulator command applied (published with the depth).
    @usableFromInline let serials: UnsafeMutablePointer<UInt32>
    /// The slots with a modulator running.
    @usableFromInline var active = SlotSet()
    /// Per modulated slot: its depth at the end of the last period, for the control side.
    @usableFromInline let depthSnapshot: ModulatorDepthSnapshot

    /// Control thread.
    init(capacity: Int) {
        entries = Resident.allocate(Modulator.self, capacity: capacity)
        layers = .allocate(capacity: capacity)
        layers.initialize(repeating: ModulationLayer(domain: .linear, minimum: 0, maximum: 1), count: capacity)
        soundingValues = .allocate(capacity: capacity)
        soundingValues.initialize(repeating: 0, count: capacity)
        serials = .allocate(capacity: capacity)
        serials.initialize(repeating: 0, count: capacity)
        depthSnapshot = ModulatorDepthSnapshot(capacity: capacity)
    }

    /// Control thread, once the audio thread has stopped.
    func deallocate() {
        UnsafeMutableRawPointer(entries).deallocate()  // allocated raw
        layers.deallocate()
        soundingValues.deallocate()
        serials.deallocate()
        depthSnapshot.deallocate()
    }

    /// Realtime-safe. Whether slot `k` is modulated (cheap when none is).
    @_noLocks @inline(__always)
    func modulates(_ k: Int) -> Bool { !active.isEmpty && active.contains(k) }

    /// Realtime-safe. The seed of a modulator whose spec gives none: the slot's own, so two
    /// parameters do not wobble alike, the same in every run.
    @_noLocks @inline(__always)
    static func defaultSeed(_ p: ParameterID) -> UInt64 { 0x9E37_79B9_7F4A_7C15 &* UInt64(p.index &+ 1) }

    /// Realtime-safe. `Command.modulate`: starts `p`'s modulator at `frame`, or replaces the one
    /// running, continuing from its phase; `value` is what `p` sounds now. `serial`: the
    /// command's (`ModulatorMark`). Musical rates lock to `timeline`.
    @_noLocks
    mutating func modulate(_ p: ParameterID, _ spec: ModulatorSpec, atFrame frame: UInt64, serial: UInt32, value: Double,
                           sampleRate: Double, timeline: Timeline) {
        let k = p.index
        serials[k] = serial
        let tempo = timeline.tempo(at: frame)
        if active.contains(k) {
            entries[k].replace(with: spec, atFrame: frame, sampleRate: sampleRate, tempo: tempo, defaultSeed: Self.defaultSeed(p))
        } else {
            entries[k] = Modulator(spec, atFrame: frame, sampleRate: sampleRate, tempo: tempo, defaultSeed: Self.defaultSeed(p))
            soundingValues[k] = value
            active.insert(k)
        }
    }

    /// Realtime-safe. `Command.modulateDepth`: nothing when `p` has no modulator running.
    @_noLocks
    func modulateDepth(_ p: ParameterID, _ spec: AnimationSpec, atFrame frame: UInt64, serial: UInt32, sampleRate: Double) {
        guard active.contains(p.index) else { return }
        serials[p.index] = serial
        entries[p.index].animateDepth(spec, atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. `Command.stopModulator`: the depth falls to 0 over `seconds`; the slot
    /// leaves `active` at the end of the period its modulator ends in.
    @_noLocks
    func stop(_ p: ParameterID, fadeSeconds seconds: Double, atFrame frame: UInt64, serial: UInt32, sampleRate: Double) {
        guard active.contains(p.index) else { return }
        serials[p.index] = serial
        entries[p.index].stop(fadeSeconds: seconds, atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. At a period's end, for a modulated slot `k`: its depth at the last frame
    /// rendered to `depthSnapshot` (0 once it has ended, and it then leaves `active`).
    @_noLocks
    mutating func publishDepth(_ k: Int) {
        let ended = entries[k].hasEnded
        depthSnapshot.publish(at: k, depth: ended ? 0 : entries[k].depth, serial: serials[k])
        if ended { active.remove(k) }
    }

    /// Realtime-safe. Slot `k`'s animated values of frames `first ..< first + count` in
    /// `values` become what sounds; the last is kept for the period's end.
    @_noLocks
    func modulate(_ k: Int, _ values: UnsafeMutablePointer<Double>, first: UInt64, count: Int, sampleRate: Double,
                  timeline: Timeline) {
        let entry = entries + k
        let increment = entry.pointee.phaseIncrement(atFrame: first, sampleRate: sampleRate, timeline: timeline)
        entry.pointee.render(values, first: first, count: count, increment: increment, layer: layers[k])
        soundingValues[k] = values[count &- 1]
    }

    /// Realtime-safe. The modulated ones of the five of the signal path, after their
    /// animations and bindings: one at rest (not in `rendered`) is first written into its
    /// chunk. Returns the slots modulated, which the mix then reads from their chunks.
    @_noLocks
    func modulateSignalPath(first: UInt64, count: Int, rendered: RenderedParameters, chunks: ChunkScratch,
                            params: UnsafeMutablePointer<AnimatedParameter>, sampleRate: Double,
                            timeline: Timeline) -> RenderedParameters {
        var modulated = RenderedParameters()
        var b = 0
        while b < ParameterID.signalPathCount {
            if active.contains(b) {
                let chunk = chunks.chunk(b)
                if !rendered.contains(RenderedParameters(slot: b)) { chunk.update(repeating: params[b].value, count: count) }
                modulate(b, chunk, first: first, count: count, sampleRate: sampleRate, timeline: timeline)
                modulated.insert(RenderedParameters(slot: b))
            }
            b &+= 1
        }
        return modulated
    }
}
