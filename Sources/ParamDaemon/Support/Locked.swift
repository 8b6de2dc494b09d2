import Synchronization

#if PARAMD_TSAN
// ThreadSanitizer does not see `Synchronization.Mutex` on Linux (it locks with a futex), and
// reports the data it guards as raced. The TSan build (`make tsan`, `-DPARAMD_TSAN`) tells it
// about each critical section through the runtime's own annotations.
@_silgen_name("__tsan_acquire") private func tsanAcquire(_ address: UnsafeMutableRawPointer)
@_silgen_name("__tsan_release") private func tsanRelease(_ address: UnsafeMutableRawPointer)
#endif

/// A value behind a `Mutex`, shared by the control thread and the daemon's other non-realtime
/// threads. The one lock type of the daemon; the audio thread never takes it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        try mutex.withLock { (value: inout Value) throws(E) -> Result in
            #if PARAMD_TSAN
            let token = Unmanaged.passUnretained(self).toOpaque()
            tsanAcquire(token)
            defer { tsanRelease(token) }
            #endif
            return try body(&value)
        }
    }
}
