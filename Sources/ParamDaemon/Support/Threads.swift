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
