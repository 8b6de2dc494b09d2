import ParamCore
import ParamSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How the audio thread wakes the publisher thread, and tells it nothing else: three atomic
/// words in `HotMemory` and one `eventfd`, for paramd's life, shared by every JACK client
/// (docs/ARCHITECTURE.md, "Waking"; the control thread's wait for a period is `PeriodWaiter`).
///
/// - `armed` (publisher → audio): what the sleeping publisher wants to be woken for, `urgent`
///   (an end, a moved target: `/done` within 2 ms) and/or `values`. 0 while awake.
/// - `pending` (audio → publisher): what was pushed since the publisher last looked.
/// - `valuesWanted` (control → audio): someone follows values; otherwise none are pushed.
///
/// At a period's end the audio thread ORs what it pushed into `pending` and, if the publisher
/// is armed for it, takes `armed` (exchange to 0) and writes the `eventfd`: at most one
/// `write(2)` a period, no lock. Both sides store then check, sequentially consistent (audio:
/// `pending` then `armed`; publisher: `armed` then `pending`), so one sees the other (Dekker).
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
