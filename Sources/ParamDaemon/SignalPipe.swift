import Foundation

/// Turns signals into bytes on a pipe the control loop polls. The signals are blocked in
/// every thread (set before any other thread exists, so JACK's and ours inherit the mask)
/// and taken by one thread in `sigwait`, which writes each signal number to the pipe.
enum SignalPipe {
    /// Returns the read end of the pipe: each signal arrives as one `Int32`.
    static func install(_ signals: [Int32]) -> Int32 {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let blocked = mask
        let thread = Thread {
            var set = blocked
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) == 0 {
                    _ = withUnsafeBytes(of: &signal) { write(writeEnd, $0.baseAddress, $0.count) }
                }
            }
        }
        thread.name = "paramd-signals"
        thread.start()
        return readEnd
    }
}
