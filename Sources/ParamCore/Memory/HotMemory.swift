import Synchronization

/// Where the small blocks the audio thread touches every period live (the process context,
/// the cells and views of Memory/, the rings' indices, the wake words, the CV port tables):
/// one page-aligned region, each block on its own cache line, so that a period touches a
/// few pages rather than one per block (docs/PERFORMANCE.md, "Cold memory").
///
/// Control side only, and lock-free: a bitmap of the region's cache lines, claimed by
/// compare-and-exchange. A block given back frees its lines; one over 4 KiB, or one that finds
/// no room, comes from the heap. Inside `placing` blocks follow one another in the order
/// allocated (so one page can hold what a period touches); inside `outside` they come from
/// the heap.
public enum HotMemory {
    /// 32 KiB: a JACK client's blocks take 8 KiB (`placing`), and a reconnection claims a
    /// new run while the lost client's renderer is still parked in its own.
    public static let regionSize = 32768
    static let line = 64
    static let lines = regionSize / line

    /// The region, zeroed; nil if it could not be allocated (then everything is heap). These
    /// three are set once and never reassigned; what they point to is handed out by the bitmap.
    nonisolated(unsafe) static let region: UnsafeMutableRawPointer? = {
        guard let p = CLibrary.alignedAllocate(byteCount: regionSize, alignment: 4096) else { return nil }
        CLibrary.zero(p, byteCount: regionSize)
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
    /// the region while it has room (inside `placing`, next in its run; inside `outside`,
    /// from the heap).
    public static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= line && alignment > 0 && alignment & (alignment - 1) == 0)
        let n = max(1, (byteCount + line - 1) / line)
        if placer.load(ordering: .relaxed) == CLibrary.currentThread {
            if placingOnHeap {
                heapBlocks.add(1, ordering: .relaxed)
                return UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: line)
            }
            if let region, n <= 255, cursor + n <= runEnd {
                let first = cursor
                cursor += n
                lengths[first].store(UInt8(n), ordering: .relaxed)
                return region + first * line
            }
        }
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
        release(first, n)
    }

    /// Clears the bits of lines `first..<first + n` (a placed block may cross a word).
    static func release(_ first: Int, _ n: Int) {
        var line = first
        while line < first + n {
            let k = min(64 - line % 64, first + n - line)
            let run: UInt64 = k == 64 ? ~0 : (1 << UInt64(k)) &- 1
            used[line / 64].bitwiseAnd(~(run << UInt64(line % 64)), ordering: .acquiringAndReleasing)
            line += k
        }
    }

    /// Claims `n` free lines in a row, anywhere in the region (across words), or nil.
    static func claimRun(_ n: Int) -> Int? {
        var start = 0
        outer: while start + n <= lines {
            var line = start
            while line < start + n {
                let k = min(64 - line % 64, start + n - line)
                let run: UInt64 = k == 64 ? ~0 : (1 << UInt64(k)) &- 1
                let current = used[line / 64].load(ordering: .relaxed)
                if (current >> UInt64(line % 64)) & run != 0 {
                    if line > start { release(start, line - start) }
                    start = line + 1
                    continue outer
                }
                let (claimed, _) = used[line / 64].compareExchange(
                    expected: current, desired: current | run << UInt64(line % 64), ordering: .acquiringAndReleasing)
                if !claimed { continue }  // another thread took a line of this word: look again
                line += k
            }
            return start
        }
        return nil
    }

    // Placement: one thread at a time lays out the blocks it allocates (`placing`, `outside`).
    static let placer = Atomic<UInt>(0)  // pthread_self of the thread placing; 0: none
    nonisolated(unsafe) static var placingOnHeap = false
    nonisolated(unsafe) static var cursor = 0
    nonisolated(unsafe) static var runEnd = 0

    /// Control side. The blocks this thread allocates in `body` are laid one after another, in
    /// the order allocated, in a run of `lineCount` lines claimed at once (what is left of the
    /// run is given back at the end); once the run is full, or if no run was free, they are
    /// placed as usual. So the blocks the audio thread touches every period can be put on one
    /// page by allocating them first, however the region was used before. If another thread
    /// is placing, `body` runs without placement.
    public static func placing<R, E: Error>(lines lineCount: Int, _ body: () throws(E) -> R) throws(E) -> R {
        guard region != nil, let start = claimRun(min(lineCount, lines)) else { return try body() }
        guard placer.compareExchange(expected: 0, desired: CLibrary.currentThread, ordering: .acquiring).exchanged else {
            release(start, min(lineCount, lines))
            return try body()
        }
        placingOnHeap = false
        cursor = start
        runEnd = start + min(lineCount, lines)
        defer {
            if cursor < runEnd { release(cursor, runEnd - cursor) }
            cursor = 0
            runEnd = 0
            placer.store(0, ordering: .releasing)
        }
        return try body()
    }

    /// Control side. The blocks this thread allocates in `body` come from the heap: for values
    /// built with the audio side's types that no audio thread will touch (the renderer parked
    /// while no JACK server is there), so they leave the region to the blocks that run.
    public static func outside<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        guard placer.compareExchange(expected: 0, desired: CLibrary.currentThread, ordering: .acquiring).exchanged else {
            return try body()
        }
        placingOnHeap = true
        defer {
            placingOnHeap = false
            placer.store(0, ordering: .releasing)
        }
        return try body()
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
