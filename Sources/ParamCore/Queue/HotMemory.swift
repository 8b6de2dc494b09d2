#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where the small blocks the audio thread touches every period live: the process context,
/// the cells (sample rate, counters, snapshot, clock offset), the rings' indices, the wake
/// words, the MIDI engine's counts and mailbox, the CV port tables. One page-aligned region,
/// so that a period touches a few pages, not one per block wherever `malloc` put it.
///
/// Why (docs/PERFORMANCE.md, "Cold memory"): the JACK thread sleeps between periods while
/// other processes run on the same core, so each period starts with cold caches and TLB; in
/// this VM a page the thread had not touched lately costs a page walk of the host's tables as
/// well as the guest's, and profiles put most of an idle period's own time on first loads
/// from separately allocated blocks. cfloor keeps its state in a few static arrays.
///
/// Allocated and given back on the control side only (no lock: a bitmap of the region's cache
/// lines, claimed with compare-and-exchange, so ParamCore stays lock-free and tests may
/// allocate from several threads); the audio thread only reads and writes the blocks it was
/// given. Each block starts on its own cache line, so two blocks written by different threads
/// never share one. A block given back frees its lines for the next (a JACK reconnection
/// allocates the same blocks again); a block of more than 4 KiB, or one that finds no room,
/// comes from the heap as before.
public enum HotMemory {
    /// 16 KiB: paramd's audio side uses about 5 KiB of it.
    public static let regionSize = 16384
    static let line = 64
    static let lines = regionSize / line

    /// The region, zeroed; nil if it could not be allocated (then everything is heap). These
    /// three are set once and never reassigned; what they point to is handed out by the bitmap.
    nonisolated(unsafe) static let region: UnsafeMutableRawPointer? = {
        var p: UnsafeMutableRawPointer? = nil
        guard posix_memalign(&p, 4096, regionSize) == 0, let p else { return nil }
        memset(p, 0, regionSize)
        return p
    }()
    /// One bit a line, set while the line is in a block handed out; a block lies within one word.
    nonisolated(unsafe) static let used: UnsafeMutablePointer<Atomic<UInt64>> = {
        let words = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: lines / 64)
        for i in 0..<lines / 64 { (words + i).initialize(to: Atomic(0)) }
        return words
    }()
    /// A block's length in lines, at its first line (0 elsewhere).
    nonisolated(unsafe) static let lengths: UnsafeMutablePointer<Atomic<UInt8>> = {
        let lengths = UnsafeMutablePointer<Atomic<UInt8>>.allocate(capacity: lines)
        for i in 0..<lines { (lengths + i).initialize(to: Atomic(0)) }
        return lengths
    }()
    static let heapBlocks = Atomic<Int>(0)

    /// Control side. `byteCount` bytes aligned to `alignment` (at most a cache line), from
    /// the region while it has room.
    public static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= line && alignment > 0 && alignment & (alignment - 1) == 0)
        let n = max(1, (byteCount + line - 1) / line)
        if let region, n <= 64 {
            let run: UInt64 = n == 64 ? ~0 : (1 << UInt64(n)) &- 1
            for w in 0..<lines / 64 {
                var current = used[w].load(ordering: .relaxed)
                search: while true {
                    var shift = 0
                    while shift + n <= 64 && (current >> UInt64(shift)) & run != 0 { shift += 1 }
                    guard shift + n <= 64 else { break search }
                    let (claimed, found) = used[w].compareExchange(
                        expected: current, desired: current | run << UInt64(shift), ordering: .acquiringAndReleasing)
                    if claimed {
                        let first = w * 64 + shift
                        lengths[first].store(UInt8(n), ordering: .relaxed)
                        return region + first * line
                    }
                    current = found
                }
            }
        }
        heapBlocks.add(1, ordering: .relaxed)
        return UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: line)
    }

    /// Control side. `capacity` uninitialised values of `T`.
    public static func allocate<T: ~Copyable>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
        allocate(byteCount: MemoryLayout<T>.stride * max(capacity, 1), alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: max(capacity, 1))
    }

    /// Control side. Gives back a block from `allocate` (its values already deinitialised
    /// where that matters).
    public static func deallocate(_ pointer: UnsafeMutableRawPointer) {
        guard contains(pointer) else { return pointer.deallocate() }
        let first = (pointer - region!) / line
        let n = Int(lengths[first].exchange(0, ordering: .relaxed))
        precondition(n > 0, "HotMemory: a block given back twice or never handed out")
        let run: UInt64 = n == 64 ? ~0 : (1 << UInt64(n)) &- 1
        used[first / 64].bitwiseAnd(~(run << UInt64(first % 64)), ordering: .acquiringAndReleasing)
    }

    public static func deallocate<T: ~Copyable>(_ pointer: UnsafeMutablePointer<T>) {
        deallocate(UnsafeMutableRawPointer(pointer))
    }

    /// For tests: bytes of the region in use, and how many blocks came from the heap.
    public static var usage: (regionBytes: Int, heapBlocks: Int) {
        var lines = 0
        for w in 0..<Self.lines / 64 { lines += used[w].load(ordering: .relaxed).nonzeroBitCount }
        return (lines * line, heapBlocks.load(ordering: .relaxed))
    }

    /// Whether `pointer` lies in the region.
    public static func contains(_ pointer: UnsafeRawPointer) -> Bool {
        guard let region else { return false }
        return pointer >= UnsafeRawPointer(region) && pointer < UnsafeRawPointer(region + regionSize)
    }
}
