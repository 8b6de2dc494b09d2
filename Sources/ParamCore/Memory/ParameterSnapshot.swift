/// Each parameter slot's value at the end of the last period and its target, as the audio
/// thread published them: written by the audio thread, read by any thread (`/get`, the
/// publisher, MIDI feedback). Two cells a slot, Double bit patterns; a struct of one pointer.
public struct ParameterSnapshot: Sendable {
    @usableFromInline let cells: AtomicCells

    /// Control thread. Room for `capacity` slots, all 0.
    public init(capacity: Int) { cells = AtomicCells(count: 2 * capacity) }

    /// Realtime-safe, any thread. Relaxed: each cell is an independent value with one writer.
    /// The value sounding at the end of the last period in `slot`.
    @_noLocks @inlinable @inline(__always)
    public func value(at slot: Int) -> Double { cells.loadDouble(2 * slot) }
    /// Realtime-safe, any thread. Relaxed. The audio side's target in `slot`.
    @_noLocks @inlinable @inline(__always)
    public func target(at slot: Int) -> Double { cells.loadDouble(2 * slot + 1) }
    /// Any thread. Relaxed. The value sounding at the end of the last period.
    @_noLocks @inlinable @inline(__always)
    public func value(_ p: ParameterID) -> Double { value(at: Int(p.rawValue)) }
    /// Any thread. Relaxed. The audio side's target.
    @_noLocks @inlinable @inline(__always)
    public func target(_ p: ParameterID) -> Double { target(at: Int(p.rawValue)) }

    /// Realtime-safe; the renderer only. Relaxed stores: publishes `slot`'s value, then its target.
    @_noLocks @inlinable @inline(__always)
    public func publish(at slot: Int, value: Double, target: Double) {
        cells.storeDouble(2 * slot, value)
        cells.storeDouble(2 * slot + 1, target)
    }

    /// Control thread, once nobody reads it.
    public func deallocate() { cells.deallocate() }
}
