import Synchronization

/// A bounded single-producer single-consumer ring of `BitwiseCopyable` values in preallocated
/// raw memory. One thread pushes, one thread pops; neither ever waits, locks or allocates.
/// A full ring refuses the push (the caller counts the drop).
///
/// It is a struct of pointers: the producer and the consumer each hold a copy, which share
/// the same storage. `deallocate()` must be called once, after both sides are done.
public struct SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Element>
    /// head (next slot to read, written by the consumer) and tail (next slot to write,
    /// written by the producer), on separate cache lines.
    @usableFromInline let indices: UnsafeMutableRawPointer
    @usableFromInline let mask: Int

    @usableFromInline static var cacheLine: Int { 64 }

    /// Control thread. `capacity` is rounded up to a power of two. The storage is made resident
    /// now (`Resident`): a ring the audio thread fills then never faults on it, and one the
    /// control side fills does not fault page by page as it first wraps (it is all resident
    /// after the first `capacity` entries anyway).
    public init(capacity: Int) {
        var size = 1
        while size < max(capacity, 2) { size <<= 1 }
        storage = Resident.allocate(Element.self, capacity: size)
        mask = size - 1
        indices = HotMemory.allocate(byteCount: 2 * Self.cacheLine, alignment: Self.cacheLine)
        indices.bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        (indices + Self.cacheLine).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
    }

    public var capacity: Int { mask + 1 }

    @usableFromInline var head: UnsafeMutablePointer<Atomic<Int>> {
        indices.assumingMemoryBound(to: Atomic<Int>.self)
    }
    @usableFromInline var tail: UnsafeMutablePointer<Atomic<Int>> {
        (indices + Self.cacheLine).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Producer side. Realtime-safe. Returns false (and stores nothing) when the ring is full.
    @inlinable
    public func push(_ value: Element) -> Bool {
        let t = tail.pointee.load(ordering: .relaxed)  // only this thread writes tail
        let h = head.pointee.load(ordering: .acquiring)  // pairs with the consumer's releasing store of head
        if t &- h > mask { return false }
        storage[t & mask] = value
        tail.pointee.store(t &+ 1, ordering: .releasing)  // publishes the slot to the consumer's acquiring load
        return true
    }

    /// Producer side. Realtime-safe. Pushes all of `values` or none of them, and makes them
    /// visible to the consumer at once (so a bundle's commands are drained in one period).
    @inlinable
    public func push(all values: UnsafeBufferPointer<Element>) -> Bool {
        let t = tail.pointee.load(ordering: .relaxed)
        let h = head.pointee.load(ordering: .acquiring)  // pairs with the consumer's releasing store of head
        if (t &- h) &+ values.count > mask &+ 1 { return false }
        var i = 0
        while i < values.count { storage[(t &+ i) & mask] = values[i]; i &+= 1 }
        tail.pointee.store(t &+ values.count, ordering: .releasing)  // publishes all slots at once
        return true
    }

    /// Consumer side. Realtime-safe. The oldest value, or nil when empty.
    @inlinable
    public func pop() -> Element? {
        let h = head.pointee.load(ordering: .relaxed)  // only this thread writes head
        let t = tail.pointee.load(ordering: .acquiring)  // pairs with the producer's releasing store of tail
        if h == t { return nil }
        let value = storage[h & mask]
        head.pointee.store(h &+ 1, ordering: .releasing)  // frees the slot for the producer's acquiring load
        return value
    }

    /// Either side. Realtime-safe. How many values wait (a snapshot).
    @inlinable
    public var count: Int {
        let t = tail.pointee.load(ordering: .acquiring)
        let h = head.pointee.load(ordering: .acquiring)
        return t &- h
    }

    /// Control thread, once, after both sides have stopped using the ring.
    public func deallocate() {
        storage.deallocate()
        HotMemory.deallocate(indices)
    }
}
