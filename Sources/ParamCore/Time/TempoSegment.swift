/// One stretch of a timeline between two tempo changes: from `anchorFrame` (at `anchorBeat`)
/// the tempo goes linearly from `startTempo` to `endTempo` over `glideFrames` frames, then holds.
/// Before its anchor it is read at `startTempo`. Offsets are in frames from the anchor, as
/// Doubles (fractional, maybe negative). The beat is the integral of the tempo, written in
/// "BPM·frames" (beats × 60 × sample rate) so that whole beats at whole frames per beat come
/// out exact: at 120 BPM and 48 kHz, 24,000 × 120 = 2,880,000 = one beat.
public struct TempoSegment: Equatable, Sendable, BitwiseCopyable {
    public var anchorFrame: UInt64
    public var anchorBeat: Double
    /// BPM at the anchor.
    public var startTempo: Double
    /// BPM the segment glides to and then holds (`startTempo` for a step).
    public var endTempo: Double
    /// The glide's length in frames from the anchor; 0 for a step.
    public var glideFrames: UInt64

    /// Realtime-safe. The tempo `offset` frames after the anchor, BPM.
    @_noLocks
    public func tempo(atOffset offset: Double) -> Double {
        guard glideFrames > 0, offset > 0 else { return startTempo }
        let glide = Double(glideFrames)
        guard offset < glide else { return endTempo }
        return startTempo + (endTempo - startTempo) * (offset / glide)
    }

    /// Realtime-safe. The beat `offset` frames after the anchor.
    @_noLocks
    public func beat(atOffset offset: Double, sampleRate: Double) -> Double {
        anchorBeat + bpmFrames(atOffset: offset) / (60 * sampleRate)
    }

    /// Realtime-safe. The offset at which the segment reaches `beat` (the inverse of `beat`).
    @_noLocks
    public func offset(ofBeat beat: Double, sampleRate: Double) -> Double {
        let bpmFrames = (beat - anchorBeat) * 60 * sampleRate
        guard glideFrames > 0, bpmFrames > 0 else { return bpmFrames / startTempo }
        let glide = Double(glideFrames)
        let glideBPMFrames = glide * (startTempo + endTempo) / 2
        if bpmFrames >= glideBPMFrames { return glide + (bpmFrames - glideBPMFrames) / endTempo }
        // T0·d + (T1 − T0)·d²/(2G) = bpmFrames for d in 0…G; its root written as
        // 2c / (b + √(b² + 4ac)), which keeps its precision when T1 − T0 is small.
        let a = (endTempo - startTempo) / (2 * glide)
        let root = Math.sqrt(startTempo * startTempo + 4 * a * bpmFrames)
        return 2 * bpmFrames / (startTempo + root)
    }

    /// Realtime-safe. ∫ tempo over the first `offset` frames, BPM·frames.
    @_noLocks
    func bpmFrames(atOffset offset: Double) -> Double {
        guard glideFrames > 0, offset > 0 else { return offset * startTempo }
        let glide = Double(glideFrames)
        if offset >= glide { return glide * (startTempo + endTempo) / 2 + (offset - glide) * endTempo }
        return startTempo * offset + (endTempo - startTempo) * offset * offset / (2 * glide)
    }
}
