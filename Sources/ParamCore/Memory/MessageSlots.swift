import Synchronization

/// Text messages from threads that may be stopped at any instruction, for one reader.
///
/// Made for libjack's error and information callbacks: JACK2 calls them from its process and
/// notification threads too (as the server goes away, for one), and cancels those threads
/// asynchronously (`PTHREAD_CANCEL_ASYNCHRONOUS`, then `pthread_cancel`) when the client is
/// closed. A thread cancelled inside `malloc`, a Swift runtime lock or a lazy global's
/// initialisation leaves that lock held for good, and the next thread to need it (the one
/// closing the client) waits forever. `post` therefore only claims a slot with atomics and
/// copies bytes: no allocation, no lock, no call into the Swift runtime. A thread stopped
/// inside it leaves at most its own slot unusable. The reader (`take`) turns the finished
/// slots into strings, oldest first.
public struct MessageSlots: @unchecked Sendable {
    /// Bytes a slot keeps of a message; longer ones are cut there.
    public static var slotBytes: Int { 240 }

    public let count: Int
    /// Per slot: 0 free, 1 being written, 2 written.
    let states: UnsafeMutablePointer<Atomic<UInt32>>
    /// [0] the next message's number, [1] messages dropped for want of a free slot.
    let counters: UnsafeMutablePointer<Atomic<UInt64>>
    let numbers: UnsafeMutablePointer<UInt64>
    let lengths: UnsafeMutablePointer<Int>
    let kinds: UnsafeMutablePointer<UInt8>
    let bytes: UnsafeMutablePointer<UInt8>

    public init(count: Int) {
        precondition(count > 0)
        self.count = count
        states = .allocate(capacity: count)
        for i in 0..<count { (states + i).initialize(to: Atomic(0)) }
        counters = .allocate(capacity: 2)
        for i in 0..<2 { (counters + i).initialize(to: Atomic(0)) }
        numbers = .allocate(capacity: count)
        numbers.initialize(repeating: 0, count: count)
        lengths = .allocate(capacity: count)
        lengths.initialize(repeating: 0, count: count)
        kinds = .allocate(capacity: count)
        kinds.initialize(repeating: 0, count: count)
        bytes = .allocate(capacity: count * Self.slotBytes)
        bytes.initialize(repeating: 0, count: count * Self.slotBytes)
    }

    /// Frees the slots; nothing may post or take afterwards.
    public func deallocate() {
        states.deinitialize(count: count)
        states.deallocate()
        counters.deinitialize(count: 2)
        counters.deallocate()
        numbers.deallocate()
        lengths.deallocate()
        kinds.deallocate()
        bytes.deallocate()
    }

    /// Any thread, async-cancel-safe. Copies the NUL-terminated `message` into a free slot
    /// (the one its number falls on, or the next free one), or counts it dropped.
    @_noLocks
    public func post(_ message: UnsafePointer<CChar>, kind: UInt8) {
        let number = counters[0].wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        var i = Int(number % UInt64(count))
        var probes = 0
        while !states[i].compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            probes &+= 1
            if probes == count {
                counters[1].wrappingAdd(1, ordering: .relaxed)
                return
            }
            i = i &+ 1 == count ? 0 : i &+ 1
        }
        let out = bytes + i &* Self.slotBytes
        var n = 0
        while n < Self.slotBytes, message[n] != 0 {
            out[n] = UInt8(bitPattern: message[n])
            n &+= 1
        }
        numbers[i] = number
        lengths[i] = n
        kinds[i] = kind
        states[i].store(2, ordering: .sequentiallyConsistent)  // with the number taken after it: take's limit
    }

    /// The one reader. The written messages numbered before this call began, in the order
    /// they were posted (a cut one ends in "…"), their slots freed; and how many were dropped
    /// since the last call. The limit keeps one thread's messages in order across calls: its
    /// next message is numbered only after its last one was written, so if that one was still
    /// being written when the slots were read, the next is numbered after the limit and waits
    /// for the next call too.
    public func take() -> (messages: [(kind: UInt8, text: String)], dropped: UInt64) {
        let limit = counters[0].load(ordering: .sequentiallyConsistent)
        var ready: [(number: UInt64, slot: Int)] = []
        for i in 0..<count where states[i].load(ordering: .sequentiallyConsistent) == 2 && numbers[i] < limit {
            ready.append((numbers[i], i))
        }
        let dropped = counters[1].exchange(0, ordering: .relaxed)
        guard !ready.isEmpty else { return ([], dropped) }
        var messages: [(kind: UInt8, text: String)] = []
        for (_, i) in ready.sorted(by: { $0.number < $1.number }) {
            var text = String(decoding: UnsafeBufferPointer(start: bytes + i * Self.slotBytes, count: lengths[i]), as: UTF8.self)
            if lengths[i] == Self.slotBytes { text += "…" }
            messages.append((kinds[i], text))
            states[i].store(0, ordering: .releasing)
        }
        return (messages, dropped)
    }
}
