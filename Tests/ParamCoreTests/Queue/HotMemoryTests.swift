import Testing
@testable import ParamCore

/// The region the audio thread's small blocks share (docs/PERFORMANCE.md, "Cold memory").
@Suite struct HotMemoryTests {
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
}
