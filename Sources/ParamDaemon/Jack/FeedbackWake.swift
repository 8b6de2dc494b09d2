import ParamCore
import ParamSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How the audio thread wakes the publisher thread, and tells it nothing else
/// (docs/ARCHITECTURE.md, "Waking").
///
/// Three atomic words in `HotMemory` and one `eventfd`, allocated once for paramd's life and
/// shared by every JACK client it opens (the control thread's wait for a period is
/// `PeriodWaiter`'s):
///
/// - `armed` (publisher → audio): what the sleeping publisher wants to be woken for —
///   `urgent` (an animation ended, a target moved: `/done` must go out within 2 ms) and/or
///   `values` (a moving parameter's value, when a subscriber is due one). 0 while awake.
/// - `pending` (audio → publisher): what the audio thread pushed since the publisher last
///   looked, so a push that lands between the publisher's last drain and its sleep is not
///   slept through.
/// - `valuesWanted` (control → audio): someone follows values; otherwise moving parameters
///   push no value events at all and the publisher is not woken for them.
///
/// At the end of a period the audio thread ORs what it pushed into `pending`, and if the
/// publisher is armed for it takes `armed` (exchange to 0) and writes the `eventfd` once:
/// at most one `write(2)` per period, never a lock. Both sides use sequentially consistent
/// operations in the order store-then-check (audio: `pending` then `armed`; publisher:
/// `armed` then `pending`), so at least one of them sees the other (Dekker's argument): the
/// publisher either notices the push before sleeping or is woken by it.
struct FeedbackWake: @unchecked Sendable {
    static let urgent: UInt32 = 1
    static let values: UInt32 = 2

    /// [armed, pending, valuesWanted], reached only through the three below.
    private let words: UnsafeMutablePointer<Atomic<UInt32>>
    @inline(__always) private var armed: UnsafeMutablePointer<Atomic<UInt32>> { words }
    @inline(__always) private var pending: UnsafeMutablePointer<Atomic<UInt32>> { words + 1 }
    @inline(__always) private var valuesWantedWord: UnsafeMutablePointer<Atomic<UInt32>> { words + 2 }
    /// Signalled when the publisher is armed for what was pushed; open for paramd's life.
    let event: EventFD
    /// What the publisher polls.
    var fd: Int32 { event.fd }

    init() {
        words = HotMemory.allocate(Atomic<UInt32>.self, capacity: 3)
        for i in 0..<3 { (words + i).initialize(to: Atomic(0)) }
        event = EventFD()
    }

    /// Realtime-safe. The end of a period in which the audio thread pushed ends or target
    /// updates (`urgent`) and/or values.
    @_noLocks
    func periodPushed(urgent: Bool, values: Bool) {
        let kinds = (urgent ? Self.urgent : 0) | (values ? Self.values : 0)
        if kinds == 0 { return }
        // Pairs with `arm`'s exchange of pending (Dekker: store, then check the other side).
        pending.pointee.bitwiseOr(kinds, ordering: .sequentiallyConsistent)
        if armed.pointee.load(ordering: .sequentiallyConsistent) & kinds != 0
            && armed.pointee.exchange(0, ordering: .sequentiallyConsistent) != 0 {
            event.signal()
        }
    }

    /// Realtime-safe. Whether moving parameters should report their values.
    @_noLocks
    func valuesWanted() -> Bool { valuesWantedWord.pointee.load(ordering: .relaxed) != 0 }

    /// Control thread: someone follows values (or nobody does).
    func setValuesWanted(_ wanted: Bool) { valuesWantedWord.pointee.store(wanted ? 1 : 0, ordering: .relaxed) }

    /// Publisher thread, at the start of a round, before it drains the event ring: what is in
    /// the ring now will be seen by this round.
    func beginRound() { pending.pointee.store(0, ordering: .sequentiallyConsistent) }

    /// Publisher thread, before sleeping: arms for `kinds`. False when something of those
    /// kinds was pushed since the last `arm` (the caller must not sleep, but look again).
    func arm(_ kinds: UInt32) -> Bool {
        armed.pointee.store(kinds, ordering: .sequentiallyConsistent)
        let pushed = pending.pointee.exchange(0, ordering: .sequentiallyConsistent)
        if pushed & kinds != 0 {
            armed.pointee.store(0, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// Publisher thread, after waking.
    func disarm() {
        armed.pointee.store(0, ordering: .sequentiallyConsistent)
        event.drain()
    }
}
