// An animation given in musical time follows the tempo (SPEC §14): when the tempo changes, what
// is left of it is stretched or squeezed so that it still ends on the beat it aimed at.

extension Animation {
    /// Realtime-safe. Whether a tempo change re-times it: given in musical time, and not a
    /// spring, whose motion runs in its own time (its frames are fitted when it starts).
    public var followsTempo: Bool {
        @_noLocks @inline(__always) get {
            guard passBeats > 0, passFrames > 0 else { return false }
            switch curve {
            case .spring, .uiKitSpring: return false
            default: return true
            }
        }
    }

    /// Realtime-safe. Re-times it at `frame` (not yet rendered) to `timeline`, which changed
    /// tempo there: it keeps its progress at `frame` (to within a frame's rounding) and ends on
    /// the frame where `timeline` reaches the beat it aimed at. An endless animation aims at the
    /// end of the pass in progress; the passes after it take the tempo as they find it.
    @_noLocks
    public mutating func retime(atFrame frame: UInt64, timeline: Timeline) {
        // Offsets are wrapping differences: a re-timed start may lie before frame 0.
        let offset = Int64(bitPattern: frame &- startFrame)
        guard followsTempo, offset >= 0, offset < totalFrames else { return }
        let endless = totalFrames == Int64.max
        // Forward passes from the start to the end aimed at, and those already played.
        let passes = endless ? Double(offset / passFrames &+ 1) : Double(totalFrames) / Double(passFrames)
        let played = Double(offset) / Double(passFrames)
        let endPosition = timeline.framePosition(ofBeat: startBeat + passes * passBeats)
        let remaining = endPosition - Double(frame)
        guard remaining >= 1, passes > played, endPosition < 9e15 else { return }
        let end = UInt64(endPosition + 0.5)
        let left = Int64(end &- frame)
        var pass = Int64(remaining / (passes - played) + 0.5)
        if pass < 1 { pass = 1 }
        // The new start may not fall after `frame`: a pass a frame longer moves it back.
        var tries = 0
        while tries < 3 {
            let total = endless ? Int64(passes) &* pass : Self.total(passFrames: pass, repeatCount: passes / (autoreverses ? 2 : 1),
                                                                      autoreverses: autoreverses)
            if total >= left, total < Int64.max {
                startFrame = end &- UInt64(total)
                passFrames = pass
                totalFrames = endless ? Int64.max : total
                inversePass = 1 / Double(pass)
                return
            }
            pass &+= 1
            tries &+= 1
        }
    }
}
