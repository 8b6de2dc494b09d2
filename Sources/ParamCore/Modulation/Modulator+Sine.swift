/// The sine at a steady depth in the `linear` domain, the case SPEC §15's cost goal is about
/// (≤ 3 ns per parameter per frame, 64 at rest): instead of a kernel sine per frame, four
/// rotating phasors, each stepping four frames by one complex multiply, so that four
/// independent chains fill the multiplier rather than one waiting on itself. The start and
/// the step come from SignalMath's kernels; 64 rotations a chunk drift by some 1e-14.
/// `ModulatorTests` holds it to the per-frame kernel within 1e-12.
extension Modulator {
    /// Realtime-safe. `renderSteadyDepth` for `.sine` and a `linear` layer.
    @_noLocks
    mutating func renderSteadySine(_ values: UnsafeMutablePointer<Double>, count: Int, increment: Double,
                                   layer: ModulationLayer) {
        let reach = depth * layer.span
        let scaled = reach * polarity.scale, shifted = reach * polarity.shift
        let low = layer.minimum, high = layer.maximum
        // Frame 0's angle is below 2π and the step at most π, so each + π/2 stays in the
        // kernel's range (below 8): cos x = sin(x + π/2).
        let angle = ModulatorWave.twoPi * phase, step = ModulatorWave.twoPi * increment
        let (c0, s0) = (SignalMath.sinOfPhase(angle + ModulatorWave.halfPi), SignalMath.sinOfPhase(angle))
        let (c, s) = (SignalMath.sinOfPhase(step + ModulatorWave.halfPi), SignalMath.sinOfPhase(step))
        // Lanes 1…3 start one step apart; each moves by 4 steps, by the double angle twice.
        var (c1, s1) = (c0 * c - s0 * s, s0 * c + c0 * s)
        var (c2, s2) = (c1 * c - s1 * s, s1 * c + c1 * s)
        var (c3, s3) = (c2 * c - s2 * s, s2 * c + c2 * s)
        var (lane0c, lane0s) = (c0, s0)
        let (cDouble, sDouble) = (c * c - s * s, 2 * s * c)
        let (c4, s4) = (cDouble * cDouble - sDouble * sDouble, 2 * sDouble * cDouble)
        var i = 0
        while i &+ 4 <= count {
            values[i] = RangeClamp.one(values[i] + (scaled * lane0s + shifted), low, high)
            values[i &+ 1] = RangeClamp.one(values[i &+ 1] + (scaled * s1 + shifted), low, high)
            values[i &+ 2] = RangeClamp.one(values[i &+ 2] + (scaled * s2 + shifted), low, high)
            values[i &+ 3] = RangeClamp.one(values[i &+ 3] + (scaled * s3 + shifted), low, high)
            (lane0c, lane0s) = (lane0c * c4 - lane0s * s4, lane0s * c4 + lane0c * s4)
            (c1, s1) = (c1 * c4 - s1 * s4, s1 * c4 + c1 * s4)
            (c2, s2) = (c2 * c4 - s2 * s4, s2 * c4 + c2 * s4)
            (c3, s3) = (c3 * c4 - s3 * s4, s3 * c4 + c3 * s4)
            i &+= 4
        }
        // The last frames (count not a multiple of 4): lanes 0, 1, 2 hold them.
        if i < count { values[i] = RangeClamp.one(values[i] + (scaled * lane0s + shifted), low, high) }
        if i &+ 1 < count { values[i &+ 1] = RangeClamp.one(values[i &+ 1] + (scaled * s1 + shifted), low, high) }
        if i &+ 2 < count { values[i &+ 2] = RangeClamp.one(values[i &+ 2] + (scaled * s2 + shifted), low, high) }
        advance(frames: count, increment: increment)
    }

    /// Realtime-safe. Moves the phase on by `frames` increments at once (the cycle by the
    /// whole cycles passed); the sine reads no random values, so none are drawn.
    @_noLocks @inline(__always)
    mutating func advance(frames: Int, increment: Double) {
        let position = phase + Double(frames) * increment
        let whole = Timeline.floor(position)
        let fraction = position - whole
        phase = fraction < 1 ? fraction : 0
        cycle &+= Int64(whole)
    }
}
