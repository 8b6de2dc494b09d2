/// The renderer's frame position, following JACK's frame counter: when JACK ran cycles without
/// this client (an overload, or PipeWire's cycle at a quantum change), the position moves on by
/// the frames it missed, so animations keep time with JACK. Owned by the audio thread.
@usableFromInline
struct JackFrameFollower: BitwiseCopyable {
    /// Frames rendered since start: the audio side's clock (moved on past each period by
    /// `Renderer.render`, and by the skips and take-backs `follow` makes).
    @usableFromInline var position: UInt64 = 0
    /// JACK's frame counter as read in the last rendered cycle, and that cycle's length.
    @usableFromInline var lastJackFrame: UInt32? = nil
    @usableFromInline var lastFrames = 0
    /// Frames JACK's counter has moved on beyond the cycles rendered, not yet confirmed by a
    /// cycle that follows on from the reading (see `follow`).
    @usableFromInline var unconfirmedSkip: Int64 = 0
    /// Frames skipped since the readings began to be compared, less those taken back: the
    /// most a step back can take back.
    @usableFromInline var skippedSinceReadingsBegan: Int64 = 0
    /// True on a server whose frame counter moves on by the earlier cycle's length, not by the
    /// cycle's own (JACK2's): PipeWire's JACK. Set before the client is activated.
    @usableFromInline var counterStepsByEarlierCycle = false
    /// This cycle's first frame was moved by a skip or a take-back on such a counter, whose
    /// frames need not keep pace with its clock then: `FrameClock` takes this cycle's reading.
    @usableFromInline var counterJumped = false

    @usableFromInline init() {}

    /// Realtime-safe. Moves `position` on by the frames JACK's counter has gone past without
    /// it, once a reading shows they were missed. JACK2 adds each cycle's length to its
    /// counter, so a longer step is either missed cycles or a late callback that read the next
    /// cycle's counter (which the next, shorter step shows). So a longer step is only noted,
    /// and skipped in the first cycle whose reading can be trusted: one that follows on (its
    /// step is this cycle's length) or one that steps back, less what the step back gives
    /// back. A step back larger than what waits takes back frames skipped wrongly (at most
    /// those skipped since the readings began). On a counter that steps by the earlier cycle's
    /// length (PipeWire) that length is what a step is measured against, so a quantum change's
    /// step is a skip like any other, taken in the cycle that shows it: that cycle runs the new
    /// quantum, and its frames sound where JACK's counter puts them. docs/ARCHITECTURE.md.
    @_noLocks @inline(__always)
    mutating func follow(_ jackFrame: UInt32?, frames: Int, counters: RenderCounters) {
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
                    position &+= UInt64(unconfirmedSkip)
                    skippedSinceReadingsBegan &+= unconfirmedSkip
                    counters.add(.skippedFrames, UInt64(unconfirmedSkip))
                    counterJumped = counterStepsByEarlierCycle
                } else if unconfirmedSkip < 0 && skippedSinceReadingsBegan > 0 {
                    let back = min(0 &- unconfirmedSkip, skippedSinceReadingsBegan)
                    position &-= UInt64(back)
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
