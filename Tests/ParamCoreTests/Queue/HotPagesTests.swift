import Testing
@testable import ParamCore

@Suite struct HotPagesTests {
    static func address(_ a: UInt) -> UnsafeRawPointer { UnsafeRawPointer(bitPattern: a)! }

    @Test func onePageEachInTheOrderFirstSeen() {
        let list = [0x10_0010, 0x10_0ff8, 0x20_0000, 0x10_0800, 0x30_1234, 0x20_0fff].map { Self.address($0) }
        let hot = HotPages(list)
        defer { hot.deallocate() }
        #expect(hot.fixedCount == 3)
        #expect(hot.pages == [0x10_0000, 0x20_0000, 0x30_1000])
    }

    @Test func theFixedListLeavesRoomForThePortsNotedEachPeriod() {
        let list = (0..<100).map { Self.address(UInt(0x100_0000 + $0 * HotPages.pageSize)) }
        let hot = HotPages(list)
        defer { hot.deallocate() }
        #expect(hot.fixedCount == HotPages.capacity - HotPages.notedSlots)
        #expect(hot.pages.count == hot.fixedCount)
        for slot in 0..<HotPages.notedSlots {
            hot.note(slot, UnsafeMutableRawPointer(bitPattern: UInt(0x7000_0000 + slot * 3 * HotPages.pageSize + 8)))
        }
        #expect(hot.pages.count == HotPages.capacity)
        #expect(hot.pages.last == UInt(0x7000_0000 + (HotPages.notedSlots - 1) * 3 * HotPages.pageSize))
        hot.note(0, nil)  // a port JACK gave no buffer: nothing asked for
        #expect(hot.pages.count == HotPages.capacity - 1)
    }

    @Test func codePagesStartAtTheCallbacksPage() {
        let pages = HotPages.codePages(from: Self.address(0x170_9090))
        #expect(pages.count == HotPages.audioPathPages)
        #expect(pages.first == Self.address(0x170_9000))
        #expect(pages.last == Self.address(0x170_9000 + UInt(HotPages.audioPathPages - 1) * 4096))
    }

    @Test func theHotRegionsPagesAreThoseHoldingBlocks() {
        let block = HotMemory.allocate(byteCount: 64, alignment: 64)
        defer { HotMemory.deallocate(block) }
        let page = UInt(bitPattern: block) & ~4095
        #expect(HotMemory.usedPages.contains { UInt(bitPattern: $0) == page })
        #expect(HotMemory.usedPages.count <= HotMemory.regionSize / 4096)
    }
}
