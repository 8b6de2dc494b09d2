import Glibc
import Synchronization

/// Set by the JACK shutdown callback when the server goes away.
let serverWentAway = Atomic<Bool>(false)
/// Counted by the JACK xrun callback.
let xrunCount = Atomic<Int>(0)

/// `jack_on_shutdown` callback. JACK thread; not on the audio path.
func onShutdown(_ arg: UnsafeMutableRawPointer?) {
    serverWentAway.store(true, ordering: .releasing)  // pairs with the acquiring load in wait()
}

/// `jack_set_xrun_callback` callback. JACK notification thread.
func onXrun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    xrunCount.add(1, ordering: .relaxed)
    return 0
}

/// SIGTERM and SIGINT (and a command's own, such as `stall`'s SIGUSR1), blocked in every thread
/// and taken with sigtimedwait on the main thread.
enum Signals {
    static func termination(also extra: [Int32] = []) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        for signal in extra { sigaddset(&set, signal) }
        return set
    }

    /// Blocks SIGTERM and SIGINT, and `extra`. Call before any thread is created (before
    /// jack_client_open), so that JACK's threads inherit the mask and the signals stay pending
    /// for `wait`.
    static func block(also extra: [Int32] = []) {
        var set = termination(also: extra)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    enum Reason: Equatable { case signal(Int32), serverWentAway, condition }

    /// Waits for SIGTERM/SIGINT (or one of `extra`), the server going away, or `condition()`
    /// becoming true (polled every 10 ms).
    static func wait(also extra: [Int32] = [], until condition: () -> Bool = { false }) -> Reason {
        var set = termination(also: extra)
        while true {
            var timeout = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            let received = sigtimedwait(&set, nil, &timeout)
            if received > 0 { return .signal(received) }
            if serverWentAway.load(ordering: .acquiring) { return .serverWentAway }
            if condition() { return .condition }
        }
    }
}
