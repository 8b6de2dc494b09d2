import Foundation
import Synchronization
import Testing
@testable import ParamCore

@Suite struct MessageSlotsTests {
    func post(_ slots: MessageSlots, _ text: String, kind: UInt8 = 0) {
        text.withCString { slots.post($0, kind: kind) }
    }

    @Test func messagesComeOutInTheOrderPostedWithTheirKindAndFreeTheirSlots() {
        let slots = MessageSlots(count: 4)
        defer { slots.deallocate() }
        post(slots, "first", kind: 0)
        post(slots, "second", kind: 1)
        post(slots, "third — ünïcode", kind: 0)
        let (messages, dropped) = slots.take()
        #expect(messages.map(\.text) == ["first", "second", "third — ünïcode"])
        #expect(messages.map(\.kind) == [0, 1, 0])
        #expect(dropped == 0)
        #expect(slots.take().messages.isEmpty)
        // The slots are free again: four more fit.
        for i in 0..<4 { post(slots, "again \(i)") }
        #expect(slots.take().messages.map(\.text) == (0..<4).map { "again \($0)" })
    }

    @Test func aLongMessageIsCutAtTheSlotAndSaysSo() {
        let slots = MessageSlots(count: 2)
        defer { slots.deallocate() }
        post(slots, String(repeating: "x", count: 1000))
        let text = slots.take().messages.first?.text
        #expect(text == String(repeating: "x", count: MessageSlots.slotBytes) + "…")
    }

    @Test func whatFindsNoFreeSlotIsCountedDroppedOnce() {
        let slots = MessageSlots(count: 3)
        defer { slots.deallocate() }
        for i in 0..<8 { post(slots, "m\(i)") }
        let (messages, dropped) = slots.take()
        #expect(messages.map(\.text) == ["m0", "m1", "m2"])
        #expect(dropped == 5)
        #expect(slots.take().dropped == 0)
    }

    /// A thread cancelled while it wrote leaves its slot claimed for good: later messages go
    /// to the other slots, in order, and the reader never waits for it.
    @Test func aSlotLeftHalfWrittenHoldsUpNothing() {
        let slots = MessageSlots(count: 4)
        defer { slots.deallocate() }
        post(slots, "before")
        _ = slots.take()
        slots.states[1].store(1, ordering: .relaxed)  // the next message's slot, as a cancelled writer leaves it
        for i in 0..<3 { post(slots, "after \(i)") }
        #expect(slots.take().messages.map(\.text) == ["after 0", "after 1", "after 2"])
        post(slots, "more")
        #expect(slots.take().messages.map(\.text) == ["more"])
    }

    @Test func manyThreadsPostingWhileOneTakesLoseNothingUncountedAndKeepEachThreadsOrder() async {
        let slots = MessageSlots(count: 32)
        defer { slots.deallocate() }
        let writers = 4, each = 5000
        let done = Atomic<Int>(0)
        var threads: [Thread] = []
        for w in 0..<writers {
            let t = Thread {
                for i in 0..<each { "w\(w) \(i)".withCString { slots.post($0, kind: UInt8(w)) } }
                done.wrappingAdd(1, ordering: .releasing)
            }
            threads.append(t)
        }
        threads.forEach { $0.start() }
        var last = [Int](repeating: -1, count: writers)
        var received = 0, dropped: UInt64 = 0, disorder = 0, garbled = 0
        while true {
            let finished = done.load(ordering: .acquiring) == writers
            let (messages, lost) = slots.take()
            dropped += lost
            for (kind, text) in messages {
                let parts = text.split(separator: " ")
                guard parts.count == 2, parts[0] == "w\(kind)", let i = Int(parts[1]) else { garbled += 1; continue }
                if i <= last[Int(kind)] { disorder += 1 }
                last[Int(kind)] = i
                received += 1
            }
            if finished && messages.isEmpty && lost == 0 { break }
        }
        #expect(garbled == 0)
        #expect(disorder == 0)
        #expect(received + Int(dropped) == writers * each)
        #expect(received > 0)
    }
}
