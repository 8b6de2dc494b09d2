/// Following JACK's frame counter: when JACK ran cycles without this client (an overload, or
/// PipeWire's cycle at a quantum change), the renderer's clock moves on by the frames it
/// missed, so animations keep time with JACK.
extension Renderer {
    /// Realtime-safe. Moves the renderer's clock on by the frames JACK's counter has gone past
    /// without it, once a reading shows they were missed. JACK2 adds each cycle's length to
    /// its counter, so a longer step is either missed cycles or a late callback that read the
    /// next cycle's counter (which the next, shorter step shows). So a longer step is only
    /// noted, and skipped in the first cycle whose reading can be trusted: one that follows on
    /// (its step is this cycle's length) or one that steps back, less what the step back gives
    /// back. A step back larger than what waits takes back frames skipped wrongly (at most
    /// those skipped since the readings began). On a counter that steps by the earlier cycle's
    /// length (`counterStepsByEarlierCycle`: PipeWire) that length is what a step is measured
    /// against, so a quantum change's step is a skip like any other, taken in the cycle that
    /// shows it: that cycle runs the new quantum, and its frames sound where JACK's counter puts
    /// them. docs/ARCHITECTURE.md.
    @_noLocks @inline(__always)
    mutating func followJackFrame(_ jackFrame: UInt32?, frames: Int) {
        counterJumped = false
        guard let jackFrame else {
            // No reading this cycle: the next one has nothing to be compared with.
            lastJackFrame = nil
            unconfirmedSkip = 0
            skippedSinceReadingsBegan = 0
            return
        }
        if let last = lastJackFrame {
            // 32-bit wrap-around is fine: only the difference matters.
            let step = Int64(Int32(bitPattern: jackFrame &- last))
            // What the counter steps by when no cycle was missed.
            let expected = Int64(counterStepsByEarlierCycle ? lastFrames : frames)
            let followsOn = counterStepsByEarlierCycle
                ? step == expected
                : step == expected || (frames != lastFrames && step == Int64(lastFrames))
            if !followsOn { unconfirmedSkip &+= step &- expected }
            // A step back later still takes back what a quantum change's step skipped wrongly.
            let quantumChanged = counterStepsByEarlierCycle && frames != lastFrames
            if followsOn || step < expected || quantumChanged {
                if unconfirmedSkip > 0 {
                    framePosition &+= UInt64(unconfirmedSkip)
                    skippedSinceReadingsBegan &+= unconfirmedSkip
                    counters.add(.skippedFrames, UInt64(unconfirmedSkip))
                    counterJumped = counterStepsByEarlierCycle
                } else if unconfirmedSkip < 0 && skippedSinceReadingsBegan > 0 {
                    let back = min(0 &- unconfirmedSkip, skippedSinceReadingsBegan)
                    framePosition &-= UInt64(back)
                    skippedSinceReadingsBegan &-= back
                    counters.add(.rewoundFrames, UInt64(back))
                    counterJumped = counterStepsByEarlierCycle
                }
                unconfirmedSkip = 0
            }
        }
        lastJackFrame = jackFrame
        lastFrames = frames
    }
}
