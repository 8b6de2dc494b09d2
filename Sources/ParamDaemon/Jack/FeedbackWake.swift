import ParamCore
import ParamSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How the audio thread wakes the publisher thread, and tells it nothing else
/// (docs/ARCHITECTURE.md, "Waking").
///
/// Three atomic words in raw memory and one `eventfd`, allocated once for paramd's life and
/// shared by every JACK client it opens:
///
/// - `armed` (publisher → audio): what the sleeping publisher wants to be woken for —
///   `urgent` (an animation ended, a target moved: `/done` must go out within 2 ms) and/or
///   `values` (a moving parameter's value, when a subscriber is due one). 0 while awake.
/// - `pending` (audio → publisher): what the audio thread pushed since the publisher last
///   looked, so a push that lands between the publisher's last drain and its sleep is not
///   slept through.
/// - `valuesWanted` (control → audio): someone follows values; otherwise moving parameters
///   push no value events at all and the publisher is not woken for them.
/// - `periodWanted` (control → audio): the period count (its low 32 bits, never 0) the control
///   thread sleeps until, on exit (the fade) and on a reload; 0 while nobody waits. The audio
///   thread, at the end of a period that reaches it, takes it (exchange to 0) and writes
///   `periodFD`, a second eventfd: one relaxed load a period otherwise.
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

    @usableFromInline let words: UnsafeMutablePointer<Atomic<UInt32>>
    /// Signalled when the publisher is armed for what was pushed; open for paramd's life.
    let event: EventFD
    /// Signalled when the period `periodWanted` names has been rendered, or the server went away.
    let periodEvent: EventFD
    /// What the publisher polls.
    var fd: Int32 { event.fd }

    init() {
        words = HotMemory.allocate(Atomic<UInt32>.self, capacity: 4)
        for i in 0..<4 { (words + i).initialize(to: Atomic(0)) }
        event = EventFD()
        periodEvent = EventFD()
    }

    /// Realtime-safe. The end of a period: `count` periods rendered so far. Wakes a control-side
    /// waiter whose period has come.
    @_noLocks
    func periodEnded(count: UInt64) {
        let wanted = words[3].load(ordering: .relaxed)
        guard wanted != 0, Int32(bitPattern: UInt32(truncatingIfNeeded: count) &- wanted) >= 0,
              words[3].exchange(0, ordering: .relaxed) != 0 else { return }
        periodEvent.signal()
    }

    /// Any thread but the audio thread: wakes a waiter at once (the server went away).
    func wakePeriodWaiter() {
        periodEvent.signal()
    }

    /// Control thread. Sleeps until `reached()` (the renderer's period counter has come to
    /// `target`), woken by the audio thread at the end of that period, or until `deadline`
    /// (monotonic seconds) or `gone()`: false then. Nothing polls on a timer.
    func waitForPeriod(_ target: UInt64, deadline: Double, reached: () -> Bool, gone: () -> Bool) -> Bool {
        defer { words[3].store(0, ordering: .relaxed) }
        var fds = [Poll.readable(periodEvent.fd)]
        while !reached() {
            let now = monotonicSeconds()
            if now > deadline || gone() { return false }
            let low = UInt32(truncatingIfNeeded: target)
            words[3].store(low == 0 ? 1 : low, ordering: .relaxed)
            // The period may have ended between the check above and the store: look again
            // before sleeping (the counter only grows, so a later period wakes us otherwise).
            if reached() { return true }
            _ = Poll.wait(&fds, seconds: deadline - now)
            periodEvent.drain()
        }
        return true
    }

    /// Realtime-safe. The end of a period in which the audio thread pushed ends or target
    /// updates (`urgent`) and/or values.
    @_noLocks
    func periodPushed(urgent: Bool, values: Bool) {
        let kinds = (urgent ? Self.urgent : 0) | (values ? Self.values : 0)
        if kinds == 0 { return }
        // Pairs with `arm`'s exchange of pending (Dekker: store, then check the other side).
        words[1].bitwiseOr(kinds, ordering: .sequentiallyConsistent)
        if words[0].load(ordering: .sequentiallyConsistent) & kinds != 0
            && words[0].exchange(0, ordering: .sequentiallyConsistent) != 0 {
            event.signal()
        }
    }

    /// Realtime-safe. Whether moving parameters should report their values.
    @_noLocks
    func valuesWanted() -> Bool { words[2].load(ordering: .relaxed) != 0 }

    /// Control thread: someone follows values (or nobody does).
    func setValuesWanted(_ wanted: Bool) { words[2].store(wanted ? 1 : 0, ordering: .relaxed) }

    /// Publisher thread, at the start of a round, before it drains the event ring: what is in
    /// the ring now will be seen by this round.
    func beginRound() { words[1].store(0, ordering: .sequentiallyConsistent) }

    /// Publisher thread, before sleeping: arms for `kinds`. False when something of those
    /// kinds was pushed since the last `arm` (the caller must not sleep, but look again).
    func arm(_ kinds: UInt32) -> Bool {
        words[0].store(kinds, ordering: .sequentiallyConsistent)
        let pushed = words[1].exchange(0, ordering: .sequentiallyConsistent)
        if pushed & kinds != 0 {
            words[0].store(0, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// Publisher thread, after waking.
    func disarm() {
        words[0].store(0, ordering: .sequentiallyConsistent)
        event.drain()
    }
}
