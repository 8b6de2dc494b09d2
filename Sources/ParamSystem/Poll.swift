import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Sleeping until descriptors are ready: `ppoll(2)`, with the timeout in nanoseconds, so a
/// thread due at a time wakes at it, not up to a millisecond early or late as `poll`'s
/// milliseconds would make it. The signal mask is left as it is.
public enum Poll {
    /// A descriptor to wait on for reading (`POLLIN`).
    public static func readable(_ fd: Int32) -> pollfd {
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    }

    /// Sleeps until one of `fds` is ready, or `seconds` have passed (nil: no time limit; the
    /// limit is clamped to 0…1 day). Returns how many are ready; 0 on timeout and when a
    /// signal interrupted the wait (every `revents` cleared then).
    @discardableResult
    public static func wait(_ fds: inout [pollfd], seconds: Double?) -> Int32 {
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
}
