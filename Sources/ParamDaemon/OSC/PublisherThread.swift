import Foundation
import ParamSystem
import Synchronization

/// The publisher thread's life as the other threads see it (Publisher.swift): the eventfd the
/// control thread wakes it with, whether it should keep running, the signal it gives as it
/// ends, and when its current round began (the watchdog's health check). Any thread.
final class PublisherThread: Sendable {
    /// Control thread → publisher: stop, or look at the subscriptions again.
    let control = EventFD()
    let running = Atomic<Bool>(true)
    /// Signalled by the thread as it ends; `Publisher.stop()` waits on it.
    let finished = DispatchSemaphore(value: 0)
    /// Monotonic milliseconds at which the thread's current round began; 0 while it sleeps
    /// (a round that lasts seconds is a hang; sleep is not).
    let busySinceMilliseconds = Atomic<Int>(0)
}
