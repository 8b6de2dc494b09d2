import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A Linux `eventfd(2)` in non-blocking mode: one thread signals, another sleeps in `Poll` on
/// `fd` until it is signalled. Several signals before the reader drains it wake it once.
/// A plain value (the descriptor, as swift-system's `FileDescriptor`), so the audio thread
/// can signal one without touching a class reference; copies name the same eventfd, which
/// stays open until `close()` (paramd's are open for its life).
public struct EventFD: Sendable {
    public let fd: Int32

    /// Control thread. Stops the process if the kernel refuses (no descriptors left).
    public init() {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(fd >= 0, "eventfd: \(String(cString: strerror(errno)))")
    }

    /// Realtime-safe, any thread: wakes the thread polling `fd`. One `write(2)` of 8 bytes
    /// that never blocks (the eventfd is non-blocking). Inlined into the caller, so that the
    /// audio path's `@_noLocks` proof sees its body.
    @inlinable @inline(__always) @_noLocks
    public func signal() {
        let fd = self.fd
        var one: UInt64 = 1
        _ = _unsafePerformance { write(fd, &one, 8) }  // a system call the checker cannot see into
    }

    /// The polling thread, after a wake: resets the counter.
    public func drain() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
    }

    /// Closes the descriptor; no copy may be used afterwards.
    public func close() { _ = Glibc.close(fd) }
}
