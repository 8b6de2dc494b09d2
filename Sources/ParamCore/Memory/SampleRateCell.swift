/// The JACK server's sample rate in hertz: written by the sample-rate callback (and the
/// control thread before activation), read at the top of each period. A struct of one pointer.
public struct SampleRateCell: Sendable {
    @usableFromInline let cells: AtomicCells

    /// Control thread. 0 Hz until stored.
    public init() { cells = AtomicCells(count: 1) }

    /// Realtime-safe. Relaxed: one value, stored whole.
    @inlinable
    public var hertz: Double { @_noLocks @inline(__always) get { cells.loadDouble(0) } }

    /// Any thread. Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func store(hertz: Double) { cells.storeDouble(0, hertz) }

    /// Control thread, once no callback runs.
    public func deallocate() { cells.deallocate() }
}
