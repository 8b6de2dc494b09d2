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
/// Control thread only (allocation takes a lock); the audio thread only reads and writes the
/// blocks it was given. Each block starts on its own cache line, so two blocks written by
/// different threads never share one. A block given back is kept for the next block of the
/// same size (a JACK reconnection allocates the same blocks again); when the region is full,
/// blocks come from the heap as before.
public enum HotMemory {
    /// 16 KiB: paramd's audio side uses about 5 KiB of it.
    public static let regionSize = 16384
    static let line = 64

    struct State {
        var region: UnsafeMutableRawPointer?
        var used = 0
        /// Offset → size of every block handed out from the region.
        var sizes: [Int: Int] = [:]
        /// Blocks given back: offset and size.
        var free: [(offset: Int, size: Int)] = []
        var heapBlocks = 0
    }
    static let state = Mutex(State())

    /// Control thread. `byteCount` bytes aligned to `alignment` (at most a cache line), from
    /// the region while it has room.
    public static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= line && alignment > 0 && alignment & (alignment - 1) == 0)
        let size = max(line, (byteCount + line - 1) / line * line)
        let fromRegion: UnsafeMutableRawPointer? = state.withLock { s in
            if s.region == nil {
                var p: UnsafeMutableRawPointer? = nil
                guard posix_memalign(&p, 4096, regionSize) == 0, let p else { return nil }
                memset(p, 0, regionSize)
                s.region = p
            }
            guard let region = s.region else { return nil }
            if let k = s.free.firstIndex(where: { $0.size == size }) {
                let offset = s.free.remove(at: k).offset
                s.sizes[offset] = size
                return region + offset
            }
            guard s.used + size <= regionSize else {
                s.heapBlocks += 1
                return nil
            }
            let offset = s.used
            s.used += size
            s.sizes[offset] = size
            return region + offset
        }
        return fromRegion ?? UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: line)
    }

    /// Control thread. `capacity` uninitialised values of `T`.
    public static func allocate<T: ~Copyable>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
        allocate(byteCount: MemoryLayout<T>.stride * max(capacity, 1), alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: max(capacity, 1))
    }

    /// Control thread. Gives back a block from `allocate` (its values already deinitialised
    /// where that matters).
    public static func deallocate(_ pointer: UnsafeMutableRawPointer) {
        let address = UInt(bitPattern: pointer)
        let inRegion = state.withLock { s -> Bool in
            guard let region = s.region.map({ UInt(bitPattern: $0) }),
                  address >= region, address < region + UInt(regionSize) else { return false }
            let offset = Int(address - region)
            guard let size = s.sizes.removeValue(forKey: offset) else {
                preconditionFailure("HotMemory: a block given back twice or never handed out")
            }
            s.free.append((offset, size))
            return true
        }
        if !inRegion { pointer.deallocate() }
    }

    public static func deallocate<T: ~Copyable>(_ pointer: UnsafeMutablePointer<T>) {
        deallocate(UnsafeMutableRawPointer(pointer))
    }

    /// For tests and `/status`-style reports: bytes of the region in use, and how many blocks
    /// had to come from the heap because it was full.
    public static var usage: (regionBytes: Int, heapBlocks: Int) {
        state.withLock { s in (s.sizes.values.reduce(0, +), s.heapBlocks) }
    }

    /// Whether `pointer` lies in the region.
    public static func contains(_ pointer: UnsafeRawPointer) -> Bool {
        let address = UInt(bitPattern: pointer)
        return state.withLock { s in
            guard let region = s.region.map({ UInt(bitPattern: $0) }) else { return false }
            return address >= region && address < region + UInt(regionSize)
        }
    }
}
