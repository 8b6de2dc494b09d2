/// The signal path's loop bodies, each over one chunk: `SignalPath.mix` picks one per chunk.
extension SignalPath {
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
}
