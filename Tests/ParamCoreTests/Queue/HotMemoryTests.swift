import Testing
@testable import ParamCore

/// The region the audio thread's small blocks share (docs/PERFORMANCE.md, "Cold memory").
@Suite(.serialized) struct HotMemoryTests {
    @Test func blocksAreCacheLineAlignedInTheRegionAndReusedWhenGivenBack() {
        // An unusual size, so that other tests running beside this one do not take the block.
        let size = 64 * 37
        let a = HotMemory.allocate(byteCount: size - 5, alignment: 8)
        #expect(UInt(bitPattern: a) % 64 == 0)
        if HotMemory.contains(a) {
            HotMemory.deallocate(a)
            let b = HotMemory.allocate(byteCount: size, alignment: 64)
            #expect(b == a, "a block given back is the next block of its size")
            HotMemory.deallocate(b)
        } else {
            HotMemory.deallocate(a)  // the region was full: from the heap, freed there
        }
    }

    @Test func aFullRegionFallsBackToTheHeap() {
        var blocks: [UnsafeMutableRawPointer] = []
        let before = HotMemory.usage.heapBlocks
        // More than the region holds: the rest come from the heap, and all of it can be used.
        for _ in 0..<(HotMemory.regionSize / 1024 + 4) {
            let p = HotMemory.allocate(byteCount: 1024, alignment: 64)
            p.initializeMemory(as: UInt8.self, repeating: 0xA5, count: 1024)
            blocks.append(p)
        }
        #expect(blocks.contains { !HotMemory.contains($0) })
        #expect(HotMemory.usage.heapBlocks > before)
        #expect(Set(blocks).count == blocks.count)
        for p in blocks { HotMemory.deallocate(p) }
    }

    /// Blocks claimed and given back from several threads at once never overlap: each thread
    /// fills its blocks with its own byte and finds it intact before giving them back.
    @Test func blocksFromSeveralThreadsNeverOverlap() async {
        let broken = await withTaskGroup(of: Int.self) { group in
            for t in 0..<4 {
                group.addTask {
                    var failures = 0
                    var random = SplitMix64(seed: UInt64(t + 1))
                    for _ in 0..<2000 {
                        var blocks: [(UnsafeMutableRawPointer, Int)] = []
                        for _ in 0..<6 {
                            let size = 1 + Int(random.next() >> 54)  // 1…1024 bytes
                            let p = HotMemory.allocate(byteCount: size, alignment: 8)
                            p.initializeMemory(as: UInt8.self, repeating: UInt8(t + 1), count: size)
                            blocks.append((p, size))
                        }
                        for (p, size) in blocks {
                            if !UnsafeRawBufferPointer(start: p, count: size).allSatisfy({ $0 == UInt8(t + 1) }) { failures += 1 }
                            HotMemory.deallocate(p)
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(broken == 0)
    }

    /// Inside `placing`, blocks follow one another in the order allocated, a block of 61 lines
    /// (a renderer's parameters) across a page boundary too, whatever was given back before;
    /// given back, their lines are free again, and what the run did not use was never taken.
    @Test func placedBlocksFollowOneAnotherAcrossPages() {
        let (a, b, c) = HotMemory.placing(lines: 100) {
            (HotMemory.allocate(byteCount: 100, alignment: 8), HotMemory.allocate(byteCount: 61 * 64, alignment: 64),
             HotMemory.allocate(byteCount: 8, alignment: 8))
        }
        if let region = HotMemory.region, HotMemory.contains(a) {  // else no run of 100 lines was free
            #expect(b == a + 128)
            #expect(c == b + 61 * 64)
            b.initializeMemory(as: UInt8.self, repeating: 0x5A, count: 61 * 64)
            // The 36 lines of the run after `c` were given back when `placing` returned (another
            // test could take one since, but the allocator takes the first free lines).
            let after = (c + 64 - region) / 64
            let stillTaken = (after..<after + 36).filter { HotMemory.used[$0 / 64].load(ordering: .relaxed) >> UInt64($0 % 64) & 1 != 0 }
            #expect(stillTaken.count < 36)
        }
        HotMemory.deallocate(a); HotMemory.deallocate(b); HotMemory.deallocate(c)
    }

    /// Inside `outside`, blocks come from the heap (the parked renderer's).
    @Test func blocksOutsideComeFromTheHeap() {
        let p = HotMemory.outside { HotMemory.allocate(byteCount: 64, alignment: 64) }
        #expect(!HotMemory.contains(p))
        #expect(UInt(bitPattern: p) % 64 == 0)
        HotMemory.deallocate(p)
        let q = HotMemory.allocate(byteCount: 64 * 41, alignment: 64)
        #expect(HotMemory.contains(q) || HotMemory.usage.regionBytes > HotMemory.regionSize - 41 * 64)
        HotMemory.deallocate(q)
    }
}
