import ParamCore
import ParamSystem
import Synchronization

/// How the control thread sleeps until the audio thread has rendered a given period, on exit
/// (the fade) and on a reload (docs/ARCHITECTURE.md, "Waking"). One word in `HotMemory` and
/// one `eventfd`, allocated once for paramd's life and shared by every JACK client it opens.
///
/// `wanted` (control → audio) holds the period count (its low 32 bits, never 0) the control
/// thread waits for; 0 while nobody waits. The audio thread, at the end of a period that
/// reaches it, takes it (exchange to 0) and writes `event`: one relaxed load a period otherwise.
struct PeriodWaiter: @unchecked Sendable {
    private let wanted: UnsafeMutablePointer<Atomic<UInt32>>
    /// Signalled when the period `wanted` names has been rendered, or the server went away.
    let event: EventFD

    init() {
        wanted = HotMemory.allocate(Atomic<UInt32>.self, capacity: 1)
        wanted.initialize(to: Atomic(0))
        event = EventFD()
    }

    /// Realtime-safe. The end of a period: `count` periods rendered so far. Wakes a control-side
    /// waiter whose period has come. Relaxed: the eventfd's write and read order the rest.
    @_noLocks
    func periodEnded(count: UInt64) {
        let target = wanted.pointee.load(ordering: .relaxed)
        guard target != 0, Int32(bitPattern: UInt32(truncatingIfNeeded: count) &- target) >= 0,
              wanted.pointee.exchange(0, ordering: .relaxed) != 0 else { return }
        event.signal()
    }

    /// Any thread but the audio thread: wakes a waiter at once (the server went away).
    func wakeWaiter() {
        event.signal()
    }

    /// Control thread. Sleeps until `reached()` (the renderer's period counter has come to
    /// `target`), woken by the audio thread at the end of that period, or until `deadline`
    /// (monotonic seconds) or `gone()`: false then. Nothing polls on a timer.
    func waitForPeriod(_ target: UInt64, deadline: Double, reached: () -> Bool, gone: () -> Bool) -> Bool {
        defer { wanted.pointee.store(0, ordering: .relaxed) }
        var fds = [Poll.readable(event.fd)]
        while !reached() {
            let now = monotonicSeconds()
            if now > deadline || gone() { return false }
            let low = UInt32(truncatingIfNeeded: target)
            wanted.pointee.store(low == 0 ? 1 : low, ordering: .relaxed)
            // The period may have ended between the check above and the store: look again
            // before sleeping (the counter only grows, so a later period wakes us otherwise).
            if reached() { return true }
            _ = Poll.wait(&fds, seconds: deadline - now)
            event.drain()
        }
        return true
    }
}
