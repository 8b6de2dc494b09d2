import Foundation
import Synchronization
import Testing
@testable import ParamCore

@Suite struct SPSCRingTests {
    @Test func aFullRingRefusesAndAnEmptyRingReturnsNil() {
        let ring = SPSCRing<Int>(capacity: 4)
        defer { ring.deallocate() }
        #expect(ring.pop() == nil)
        for i in 0..<4 { #expect(ring.push(i)) }
        #expect(!ring.push(99))
        for i in 0..<4 { #expect(ring.pop() == i) }
        #expect(ring.pop() == nil)
    }

    @Test func twoThreadsLoseAndReorderNothing() async {
        let ring = SPSCRing<UInt64>(capacity: 256)
        defer { ring.deallocate() }
        let total: UInt64 = 2_000_000
        let producer = Thread {
            var next: UInt64 = 0
            while next < total {
                if ring.push(next) { next += 1 }
            }
        }
        producer.start()
        var expected: UInt64 = 0
        var disorder = 0
        while expected < total {
            if let v = ring.pop() {
                if v != expected { disorder += 1 }
                expected = v + 1
            }
        }
        #expect(disorder == 0)
        #expect(expected == total)
        #expect(ring.pop() == nil)
    }

    @Test func aBatchBecomesVisibleAllAtOnceOrNotAtAll() {
        let ring = SPSCRing<Int>(capacity: 8)
        defer { ring.deallocate() }
        let big = Array(0..<9)
        #expect(!big.withUnsafeBufferPointer { ring.push(all: $0) })
        #expect(ring.count == 0)
        let batch = [1, 2, 3, 4, 5]
        #expect(batch.withUnsafeBufferPointer { ring.push(all: $0) })
        #expect(!batch.withUnsafeBufferPointer { ring.push(all: $0) }, "3 free slots cannot take 5")
        #expect((0..<5).map { _ in ring.pop() } == batch.map { Optional($0) })
    }

    @Test func batchesPushedFromAnotherThreadArriveWhole() {
        let ring = SPSCRing<Int>(capacity: 64)
        defer { ring.deallocate() }
        let batches = 100_000
        let producer = Thread {
            var b = 0
            while b < batches {
                // Batch b holds b*10 ... b*10+4.
                let values = (0..<5).map { b * 10 + $0 }
                if values.withUnsafeBufferPointer({ ring.push(all: $0) }) { b += 1 }
            }
        }
        producer.start()
        var seen = 0
        var torn = 0
        while seen < batches {
            guard let first = ring.pop() else { continue }
            // The rest of its batch must already be there.
            if ring.count < 4 { torn += 1 }
            for k in 1..<5 {
                while true { if let v = ring.pop() { if v != first + k { torn += 1 }; break } }
            }
            seen += 1
        }
        #expect(torn == 0)
    }

    /// libjack's threads each record their id at start, concurrently (JackClient): every
    /// value lands in a cell of its own, and a value with no empty cell left is refused.
    @Test func threadsStoringAtOnceEachGetACellOfTheirOwn() {
        let cells = AtomicCells(count: 8)
        defer { cells.deallocate() }
        let stored = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 10) { i in
            if cells.storeInFirstEmpty(UInt64(100 + i)) != nil { stored.add(1, ordering: .relaxed) }
        }
        #expect(stored.load(ordering: .relaxed) == 8, "eight cells, ten values")
        let values = Set((0..<8).map { cells.load($0) })
        #expect(values.count == 8 && values.allSatisfy { (100..<110).contains($0) }, "\(values)")
    }
}
