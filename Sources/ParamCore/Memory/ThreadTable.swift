/// The threads a library started for a client, each recorded by the thread itself: its kernel
/// thread id, and beside it its `pthread_t` (so one can be told apart from the others). Empty
/// entries are 0; entries are only ever added. A struct of pointers.
public struct ThreadTable: Sendable {
    @usableFromInline let kernelIDs: AtomicCells
    @usableFromInline let pthreads: AtomicCells

    /// Control thread. Room for `capacity` threads.
    public init(capacity: Int) {
        kernelIDs = AtomicCells(count: capacity)
        pthreads = AtomicCells(count: capacity)
    }

    public var capacity: Int { kernelIDs.count }

    /// Any thread, any number of them: records the calling thread's ids in the first empty
    /// entry (none when the table is full). Relaxed.
    public func record(kernelID: UInt64, pthread: UInt64) {
        if let entry = kernelIDs.storeInFirstEmpty(kernelID) { pthreads.store(entry, pthread) }
    }

    /// Any thread. Relaxed. The kernel thread id in `entry` (0: empty).
    public func kernelID(at entry: Int) -> UInt64 { kernelIDs.load(entry) }
    /// Any thread. Relaxed. The `pthread_t` in `entry` (0: empty or not yet stored).
    public func pthread(at entry: Int) -> UInt64 { pthreads.load(entry) }

    /// Control thread, once no thread records any more.
    public func deallocate() {
        kernelIDs.deallocate()
        pthreads.deallocate()
    }
}
