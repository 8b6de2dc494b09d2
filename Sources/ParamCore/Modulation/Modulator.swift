/// One parameter's modulator as the audio thread owns it (SPEC §15): its wave, where it is in
/// the cycle, and its depth, which animates like a parameter's value (an `Animation` by value,
/// over 0…1). Fixed size and bitwise-copyable, so it lives in a slot table and a copy crosses
/// the command ring. What sounds is `ModulationLayer`'s rule over the animated value; the
/// per-frame loop and the phase lock to the timeline are in Modulator+Render.swift.
public struct Modulator: Sendable, BitwiseCopyable {
    public private(set) var shape: ModulatorShape
    public private(set) var polarity: ModulatorPolarity
    public private(set) var rate: ModulatorRate
    public private(set) var phaseOffset: Double
    public private(set) var seed: UInt64
    /// The position in the current cycle, [0, 1).
    public internal(set) var phase: Double
    /// The current cycle's number: counted from the start for a rate in Hz, the timeline's for
    /// a musical rate (so that the random values line up on every machine).
    public internal(set) var cycle: Int64
    /// A rate in Hz is a function of the frame: the wave's position (in cycles, `cycle + phase`)
    /// at `anchorFrame`, and the cycles a frame moved it by since (its increment then). Frames
    /// JACK ran without paramd move the wave as they move the renderer's clock (SPEC §15).
    @usableFromInline var anchor: ModulatorAnchor
    /// The random values of this cycle and the next (bipolar), for `random` and `sh`.
    @usableFromInline var randomFrom: Double
    @usableFromInline var randomTo: Double
    /// The depth at the last frame evaluated.
    public private(set) var depth: Double
    @usableFromInline var depthAnimation: Animation
    public private(set) var isDepthAnimating: Bool
    /// A stop's fade is running: the depth falls to 0 and the modulator then ends.
    public private(set) var isStopping: Bool
    /// The stop has run out: the parameter sounds its animated value; the owner removes this.
    public private(set) var hasEnded: Bool

    /// Realtime-safe. A new modulator starting at `frame`: at its phase offset (a musical
    /// rate locks to the timeline at its first chunk instead), its depth rising from 0 along
    /// `default` over the spec's fade (at once without one). `defaultSeed` stands in for a
    /// seed the spec does not give.
    @_noLocks
    public init(_ spec: ModulatorSpec, atFrame frame: UInt64, sampleRate: Double, tempo: Double, defaultSeed: UInt64) {
        shape = spec.shape
        polarity = spec.polarity
        rate = spec.rate
        phaseOffset = spec.phaseOffset
        seed = spec.seed ?? defaultSeed
        phase = spec.phaseOffset < 1 ? spec.phaseOffset : 0
        cycle = 0
        anchor = ModulatorAnchor(frame: frame, position: phase, cyclesPerFrame: 0)
        randomFrom = ModulatorRandom.bipolar(seed: seed, cycle: 0)
        randomTo = ModulatorRandom.bipolar(seed: seed, cycle: 1)
        depth = 0
        depthAnimation = Self.fade(from: 0, to: spec.depth, seconds: 0, atFrame: frame, sampleRate: sampleRate)
        isDepthAnimating = false
        isStopping = false
        hasEnded = false
        setDepth(spec.depth, over: spec.fade.seconds(atTempo: tempo), atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. A new `/mod` over this one: the wave continues from the current phase
    /// and cycle (a musical rate locks to the timeline again at the next chunk); the depth
    /// goes from where it is to the new depth over the spec's fade. A stop in progress is
    /// called off.
    @_noLocks
    public mutating func replace(with spec: ModulatorSpec, atFrame frame: UInt64, sampleRate: Double, tempo: Double,
                                 defaultSeed: UInt64) {
        if case .hertz = rate { lock(toPosition: anchor.position(atFrame: frame)) }
        anchor = ModulatorAnchor(frame: frame, position: Double(cycle) + phase, cyclesPerFrame: 0)
        shape = spec.shape
        polarity = spec.polarity
        rate = spec.rate
        phaseOffset = spec.phaseOffset
        // A sine runs without drawing (Modulator+Sine.swift), so the values are drawn afresh.
        seed = spec.seed ?? defaultSeed
        drawRandomValues()
        isStopping = false
        hasEnded = false
        setDepth(spec.depth, over: spec.fade.seconds(atTempo: tempo), atFrame: frame, sampleRate: sampleRate)
    }

    /// Realtime-safe. `/mod/depth`: animates the depth from where it is, as `spec` says (its
    /// target is the depth, 0…1; every curve, `repeat`, `autoreverse`, `from`, `velocity`).
    /// A stopping modulator keeps stopping (the control side refuses a depth for it).
    @_noLocks
    public mutating func animateDepth(_ spec: AnimationSpec, atFrame frame: UInt64, sampleRate: Double) {
        guard !isStopping, !hasEnded else { return }
        let from = spec.from.isNaN ? depth : Self.unit(spec.from)
        var velocity = Double.nan
        if !spec.velocity.isNaN {
            let distance = spec.target - from
            velocity = distance != 0 ? spec.velocity / distance : 0
        }
        depth = from
        depthAnimation = Animation(from: from, spec: spec, startFrame: frame, sampleRate: sampleRate, velocity: velocity)
        isDepthAnimating = depthAnimation.totalFrames > 0
        if !isDepthAnimating { depth = Self.unit(spec.target) }
    }

    /// Realtime-safe. `/mod/stop`: the depth falls to 0 along `default` over `seconds` and the
    /// modulator then ends; at once for 0.
    @_noLocks
    public mutating func stop(fadeSeconds seconds: Double, atFrame frame: UInt64, sampleRate: Double) {
        isStopping = true
        setDepth(0, over: seconds, atFrame: frame, sampleRate: sampleRate)
        if !isDepthAnimating { hasEnded = true }
    }

    /// Realtime-safe. The depth at `frame` (not before the last frame evaluated), advancing
    /// the depth animation; at its end the depth rests where it ended (a stop's end ends the
    /// modulator).
    @_noLocks @inline(__always)
    public mutating func depth(atFrame frame: UInt64) -> Double {
        guard isDepthAnimating else { return depth }
        let offset = Int64(bitPattern: frame &- depthAnimation.startFrame)
        let end = depthAnimation.totalFrames
        depth = Self.unit(depthValue(atOffset: offset < 0 ? 0 : (offset < end ? offset : end)))
        if offset >= end {
            isDepthAnimating = false
            if isStopping { hasEnded = true }
        }
        return depth
    }

    /// Realtime-safe. `Animation.value(atOffset:track:)` for a basic animation (the depth has
    /// no keyframes, so no track).
    @_noLocks @inline(__always)
    mutating func depthValue(atOffset offset: Int64) -> Double {
        let p = depthAnimation.progress(atOffset: offset)
        if p >= 1 { return depthAnimation.target }
        let eased = depthAnimation.curve.value(at: p, state: &depthAnimation.state)
        return depthAnimation.domain.decode(depthAnimation.fromEncoded + depthAnimation.deltaEncoded * eased)
    }

    /// Realtime-safe. Moves the depth to `target` along `default` over `seconds` (at once for 0).
    @_noLocks
    mutating func setDepth(_ target: Double, over seconds: Double, atFrame frame: UInt64, sampleRate: Double) {
        depthAnimation = Self.fade(from: depth, to: target, seconds: seconds, atFrame: frame, sampleRate: sampleRate)
        isDepthAnimating = depthAnimation.totalFrames > 0 && depth != target
        if !isDepthAnimating { depth = Self.unit(target) }
    }

    /// Realtime-safe. A depth animation along `default`, linear domain.
    @_noLocks
    static func fade(from: Double, to target: Double, seconds: Double, atFrame frame: UInt64, sampleRate: Double) -> Animation {
        let spec = AnimationSpec(target: unit(target), seconds: seconds, curve: .default, domain: .linear)
        return Animation(from: unit(from), spec: spec, startFrame: frame, sampleRate: sampleRate, velocity: .nan)
    }

    /// Realtime-safe. Held to 0…1 (an overshooting curve cannot push the depth out); NaN is 0.
    @_noLocks @inline(__always)
    static func unit(_ x: Double) -> Double { x >= 1 ? 1 : (x >= 0 ? x : 0) }

    /// Realtime-safe. This cycle's and the next cycle's random values, from the seed.
    @_noLocks @inline(__always)
    mutating func drawRandomValues() {
        randomFrom = ModulatorRandom.bipolar(seed: seed, cycle: cycle)
        randomTo = ModulatorRandom.bipolar(seed: seed, cycle: cycle &+ 1)
    }
}
