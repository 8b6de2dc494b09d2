/// Where a modulator at a rate in Hz is on JACK's frame line: its position in cycles at one
/// frame and the cycles each frame adds. The position at any frame is computed from these, not
/// counted frame by frame, so frames JACK ran without paramd (an xrun, a PipeWire quantum
/// change) or took back move the wave exactly as they move the renderer's clock.
@usableFromInline
struct ModulatorAnchor: Sendable, BitwiseCopyable {
    @usableFromInline var frame: UInt64
    /// Cycles since the wave's cycle 0 began, at `frame`.
    @usableFromInline var position: Double
    /// The phase increment in force (0 before the first chunk sets it).
    @usableFromInline var cyclesPerFrame: Double

    @inlinable
    init(frame: UInt64, position: Double, cyclesPerFrame: Double) {
        self.frame = frame
        self.position = position
        self.cyclesPerFrame = cyclesPerFrame
    }

    /// Realtime-safe. The position at `frame` (before `self.frame` too: frames taken back).
    @_noLocks @inlinable @inline(__always)
    func position(atFrame at: UInt64) -> Double {
        position + Double(Int64(bitPattern: at &- frame)) * cyclesPerFrame
    }
}
