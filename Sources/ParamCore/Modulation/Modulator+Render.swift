/// The modulator on the audio path: the phase lock to the timeline at a chunk's start, then the
/// wave applied to a chunk of animated values frame by frame (SPEC §15's layer rule).
extension Modulator {
    /// The most a modulator's phase moves in a frame: half a cycle (the Nyquist limit; a
    /// faster wave would alias). The control side refuses rates near it; this holds anyway.
    @inline(__always) static var maximumIncrement: Double { 0.5 }

    /// Realtime-safe. Readies a chunk that starts at `frame`: a rate in Hz locks the phase and
    /// cycle to JACK's frame (the anchor's position plus the increment per frame since), a
    /// musical rate to the timeline (cycle position = beat / cycle length + phase offset, so
    /// phase 0 falls on the timeline's beat 0 and every grid line of the cycle's length).
    /// Returns the phase increment per frame, from the rate (or the tempo at `frame`).
    @_noLocks
    public mutating func phaseIncrement(atFrame frame: UInt64, sampleRate: Double, timeline: Timeline) -> Double {
        switch rate {
        case .hertz(let hz):
            let increment = Self.held(hz / sampleRate)
            if increment != anchor.cyclesPerFrame {
                // The first chunk sets the increment; a new sample rate goes on from where it is.
                if anchor.cyclesPerFrame != 0 {
                    anchor = ModulatorAnchor(frame: frame, position: anchor.position(atFrame: frame), cyclesPerFrame: increment)
                } else {
                    anchor.cyclesPerFrame = increment
                }
            }
            lock(toPosition: anchor.position(atFrame: frame))
            return increment
        case .beats(let cycleBeats):
            guard cycleBeats > 0 else { return 0 }
            lock(toPosition: timeline.beat(at: frame) / cycleBeats + phaseOffset)
            return Self.held(timeline.tempo(at: frame) / 60 / sampleRate / cycleBeats)
        }
    }

    /// Realtime-safe. Sets phase and cycle to a position counted in cycles (a new cycle
    /// draws its random values). Positions beyond ±2⁶² cycles are left alone. A position a
    /// hair (under 1e-9 of a cycle) before the cycle the frames already wrapped into is that
    /// cycle's start: the two roundings of one line must not step `sh` back for a frame.
    @_noLocks
    mutating func lock(toPosition position: Double) {
        guard Math.magnitudeIsBelow(position, 4.611686018427388e18) else { return }
        let whole = Timeline.floor(position)
        var fraction = position - whole
        var number = Int64(whole)
        if number &+ 1 == cycle && fraction > 1 - 1e-9 {
            number = cycle
            fraction = 0
        }
        phase = fraction < 1 ? fraction : 0
        if number != cycle {
            cycle = number
            drawRandomValues()
        }
    }

    /// Realtime-safe. An increment in 0…`maximumIncrement`; NaN and negatives are 0.
    @_noLocks @inline(__always)
    static func held(_ increment: Double) -> Double {
        increment > 0 ? (increment < maximumIncrement ? increment : maximumIncrement) : 0
    }

    /// Realtime-safe. Replaces the animated values `values[0 ..< count]` of frames
    /// `first ..< first + count` by what sounds, the phase moving `increment` a frame (from
    /// `phaseIncrement`). A modulator that has ended leaves them as they are.
    @_noLocks
    public mutating func render(_ values: UnsafeMutablePointer<Double>, first: UInt64, count: Int, increment: Double,
                                layer: ModulationLayer) {
        guard !hasEnded, count > 0 else { return }
        if isDepthAnimating {
            renderMovingDepth(values, first: first, count: count, increment: increment, layer: layer)
        } else if shape == .sine, case .linear = layer.domain {
            renderSteadySine(values, count: count, increment: increment, layer: layer)
        } else {
            renderSteadyDepth(values, count: count, increment: increment, layer: layer)
        }
    }

    /// Realtime-safe. The loop at a steady depth: the reach (depth · span, mapped by the
    /// polarity) is worked out once, the shape and domain tests are the same every frame, and
    /// a parameter at rest in `log` or `db` is encoded once, not per frame.
    @_noLocks @inline(__always)
    mutating func renderSteadyDepth(_ values: UnsafeMutablePointer<Double>, count: Int, increment: Double,
                                    layer: ModulationLayer) {
        let reach = depth * layer.span
        let scaled = reach * polarity.scale, shifted = reach * polarity.shift
        let shape = self.shape
        var phase = self.phase
        var lastAnimated = Double.nan, lastEncoded = 0.0
        var i = 0
        while i < count {
            let animated = values[i]
            let offset = scaled * ModulatorWave.value(shape, phase: phase, from: randomFrom, to: randomTo) + shifted
            if case .linear = layer.domain {
                values[i] = layer.clamp(animated + offset)
            } else {
                if animated != lastAnimated {
                    lastAnimated = animated
                    lastEncoded = layer.domain.encode(animated)
                }
                values[i] = layer.sounding(encodedAnimated: lastEncoded, animated: animated, offset: offset)
            }
            phase += increment
            if phase >= 1 { phase = nextCycle(phase) }
            i &+= 1
        }
        self.phase = phase
    }

    /// Realtime-safe. The loop while the depth animates: the depth is evaluated every frame.
    @_noLocks
    mutating func renderMovingDepth(_ values: UnsafeMutablePointer<Double>, first: UInt64, count: Int, increment: Double,
                                    layer: ModulationLayer) {
        var i = 0
        while i < count {
            let reach = depth(atFrame: first &+ UInt64(i)) * layer.span
            let wave = ModulatorWave.value(shape, phase: phase, from: randomFrom, to: randomTo)
            values[i] = layer.sounding(animated: values[i], offset: reach * (polarity.scale * wave + polarity.shift))
            phase += increment
            if phase >= 1 { phase = nextCycle(phase) }
            i &+= 1
        }
    }

    /// Realtime-safe. Wraps a phase that reached 1 (an increment is at most ½, so once is
    /// enough) and moves to the next cycle's random values.
    @_noLocks @inline(__always)
    mutating func nextCycle(_ phase: Double) -> Double {
        cycle &+= 1
        randomFrom = randomTo
        randomTo = ModulatorRandom.bipolar(seed: seed, cycle: cycle &+ 1)
        let wrapped = phase - 1
        return wrapped < 1 ? wrapped : 0
    }
}
