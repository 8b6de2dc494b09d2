/// The MIDI engine's learn flag and counters (`MIDICell`), shared between the audio thread and
/// the control side. A struct of one pointer: copies share the cells.
public struct MIDICells: Sendable {
    @usableFromInline let cells: AtomicCells

    /// Control thread. All 0.
    public init() { cells = AtomicCells(count: MIDICell.allCases.count) }

    /// Realtime-safe, any thread. Relaxed: each cell is an independent value.
    @_noLocks @inlinable @inline(__always)
    public func load(_ c: MIDICell) -> UInt64 { cells.load(c.rawValue) }
    /// Realtime-safe. Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func add(_ c: MIDICell, _ amount: UInt64) { cells.add(c.rawValue, amount) }
    /// Any thread. Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func store(_ c: MIDICell, _ value: UInt64) { cells.store(c.rawValue, value) }

    /// Control thread, once nobody reads them.
    public func deallocate() { cells.deallocate() }
}
