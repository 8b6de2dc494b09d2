import Foundation
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Signals as a file descriptor the control loop polls (`signalfd`): no signal handler, no
/// thread of its own. The signals are blocked in every thread (set before any other thread
/// exists, so JACK's and ours inherit the mask), so none is delivered any other way.
enum Signals {
    /// Blocks `signals` and returns a non-blocking `signalfd` that reads them.
    static func install(_ signals: [Int32]) -> Int32 {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        precondition(fd >= 0, "signalfd: \(String(cString: strerror(errno)))")
        return fd
    }

    /// The signals waiting on `fd`, oldest first.
    static func take(_ fd: Int32) -> [Int32] {
        var taken: [Int32] = []
        var info = signalfd_siginfo()
        while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            taken.append(Int32(bitPattern: info.ssi_signo))
        }
        return taken
    }
}
