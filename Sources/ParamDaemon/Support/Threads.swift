import Foundation
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Names the calling thread as `ps -L`, `top -H` and /proc/PID/task/TID/comm show it (at most
/// 15 bytes). Foundation's `Thread.name` does not reach the kernel on Linux.
func nameThisThread(_ name: String) {
    _ = paramd_set_thread_name(name)
}

/// Sleeps in `ppoll` until one of `fds` is ready, or `seconds` have passed (nil: no time limit).
/// Nanosecond timeouts, so a thread due at a time wakes at it, not up to a millisecond early or
/// late as `poll`'s milliseconds would make it. Returns `ppoll`'s result (-1 with EINTR counts as 0).
@discardableResult
func pollSleeping(_ fds: inout [pollfd], seconds: Double?) -> Int32 {
    let rc: Int32
    if let seconds {
        let clamped = min(max(seconds, 0), 86_400)
        var timeout = timespec(tv_sec: Int(clamped), tv_nsec: Int((clamped - clamped.rounded(.down)) * 1e9))
        rc = paramd_ppoll(&fds, nfds_t(fds.count), &timeout)
    } else {
        rc = paramd_ppoll(&fds, nfds_t(fds.count), nil)
    }
    if rc < 0 {
        for i in fds.indices { fds[i].revents = 0 }
        return 0
    }
    return rc
}
