import Synchronization

/// A fixed number of atomic 64-bit cells in raw memory, for values one thread writes and
/// others read (counters, value snapshots). A struct of one pointer: copies share the cells.
public struct AtomicCells: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<Atomic<UInt64>>
    public let count: Int

    /// Control thread. All cells start at `initial`.
    public init(count: Int, initial: UInt64 = 0) {
        self.count = count
        base = HotMemory.allocate(Atomic<UInt64>.self, capacity: count)
        for i in 0..<count { (base + i).initialize(to: Atomic(initial)) }
    }

    /// Realtime-safe. Relaxed: each cell is an independent value with a single writer.
    @inlinable public func load(_ i: Int) -> UInt64 { base[i].load(ordering: .relaxed) }
    @inlinable public func store(_ i: Int, _ v: UInt64) { base[i].store(v, ordering: .relaxed) }
    @inlinable public func add(_ i: Int, _ v: UInt64) { _ = base[i].wrappingAdd(v, ordering: .relaxed) }
    @inlinable public func loadDouble(_ i: Int) -> Double { Double(bitPattern: load(i)) }
    @inlinable public func storeDouble(_ i: Int, _ v: Double) { store(i, v.bitPattern) }
    /// Any thread, any number of writers: stores `v` (not 0) in the first cell that still
    /// holds 0, and returns that cell's index (nil when none was left). A set of small values
    /// that only grows, in the order they were stored.
    @discardableResult
    public func storeInFirstEmpty(_ v: UInt64) -> Int? {
        for i in 0..<count where base[i].compareExchange(expected: 0, desired: v, ordering: .relaxed).exchanged {
            return i
        }
        return nil
    }

    public func deallocate() { HotMemory.deallocate(base) }
}
