import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A Linux `eventfd` in non-blocking mode: one thread signals, another sleeps in `poll` on
/// `fd` until it is signalled. Several signals before the reader drains it wake it once.
/// `signal()` is a single `write(2)` that never blocks, so any thread may call it.
final class EventFD: @unchecked Sendable {
    let fd: Int32

    init() {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(fd >= 0, "eventfd: \(String(cString: strerror(errno)))")
    }

    deinit { close(fd) }

    /// Any thread. Wakes the thread polling `fd`.
    func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// The polling thread: resets the counter after a wake.
    func drain() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
    }
}
