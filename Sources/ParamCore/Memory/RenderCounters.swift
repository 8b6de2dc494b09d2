/// The renderer's counters (`RenderCounter`), written by the audio thread, read by any thread.
/// Allocated once by the daemon and handed to every renderer it builds, so they count on
/// across JACK reconnections; a renderer built without them allocates its own. A struct of
/// one pointer: copies share the cells.
public struct RenderCounters: Sendable {
    @usableFromInline let cells: AtomicCells

    /// Control thread. All 0.
    public init() { cells = AtomicCells(count: RenderCounter.allCases.count) }

    /// Realtime-safe, any thread. Relaxed: each counter is an independent value with one writer.
    @_noLocks @inlinable @inline(__always)
    public func load(_ c: RenderCounter) -> UInt64 { cells.load(c.rawValue) }
    /// Realtime-safe; the audio thread (or the control side before it runs). Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func add(_ c: RenderCounter, _ amount: UInt64) { cells.add(c.rawValue, amount) }
    /// Realtime-safe; the audio thread (or the control side before it runs). Relaxed.
    @_noLocks @inlinable @inline(__always)
    public func store(_ c: RenderCounter, _ value: UInt64) { cells.store(c.rawValue, value) }

    /// Control thread, before a new renderer first runs on these counters: what the last
    /// period left (`animations`, `scheduled`) starts from 0 again; the totals count on.
    public func beginRenderer() {
        store(.animations, 0)
        store(.scheduled, 0)
    }

    /// Control thread, once nobody reads them.
    public func deallocate() { cells.deallocate() }
}
