import CJack
import Foundation

/// Whether libjack's notification thread for a client of this process has handled everything
/// the server sent it: blocked reading its socket, with nothing queued there. `LibjackWakeSlots`
/// reads the slots only then, so that a leaving still on its way through that thread is not
/// taken for one libjack skipped.
public enum LibjackNotificationThread {
    /// How long to wait for the thread to go idle. It takes microseconds unless the machine is
    /// very busy; past it, `LibjackWakeSlots` falls back to counting server requests.
    static let idleWaitSeconds = 1.0
    /// Between two looks at the thread while it works.
    static let idleLookMicroseconds: UInt32 = 500

    /// Waits until the notification thread of the client named `clientName` is idle; false when
    /// its socket or thread cannot be found, or it was still at work after `idleWaitSeconds`.
    static func waitUntilIdle(clientName: String, environment: [String: String]) -> Bool {
        let path = socketPath(clientName: clientName, uid: geteuid(), environment: environment)
        guard let socket = socketDescriptor(boundTo: path) else { return false }
        let deadline = DispatchTime.now() + idleWaitSeconds
        repeat {
            if queuedBytes(socket) == 0 && threadReading(socket) { return true }
            usleep(idleLookMicroseconds)
        } while DispatchTime.now() < deadline
        return false
    }

    /// The path libjack binds for the server's notifications to `clientName` (`JackSocket.cpp`,
    /// `BuildName` in `/dev/shm`, `which` 0): named after the client alone, not its server; a
    /// promiscuous server's has no uid. The connection libjack accepts keeps this address.
    public static func socketPath(clientName: String, uid: UInt32, environment: [String: String]) -> String {
        let name = LibjackWakeSlots.rewritten(clientName)
        return environment["JACK_PROMISCUOUS_SERVER"] == nil
            ? "/dev/shm/jack_\(name)_\(uid)_0" : "/dev/shm/jack_\(name)_0"
    }

    /// The one descriptor of this process whose own Unix-domain address is `path`; nil when
    /// none, or several (a client of the same name on another server of this process).
    public static func socketDescriptor(boundTo path: String) -> Int32? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let matches = names.compactMap(Int32.init).filter { unixAddress($0) == path }
        return matches.count == 1 ? matches[0] : nil
    }

    /// `read(2)`'s number on this machine, as `/proc/<pid>/task/<tid>/syscall` shows it.
    static let readSyscall: Int = {
        #if arch(x86_64)
        return 0
        #elseif arch(i386) || arch(arm)
        return 3
        #else
        return 63  // aarch64 and the other generic-syscall architectures
        #endif
    }()

    /// Whether a thread of this process is in `read` on `descriptor` (its `syscall` file:
    /// the number, then the arguments in hex).
    static func threadReading(_ descriptor: Int32) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.contains { task in
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8) else { return false }
            return isRead(text, of: descriptor)
        }
    }

    /// Whether a `syscall` file's `text` says `read` on `descriptor`.
    public static func isRead(_ text: String, of descriptor: Int32) -> Bool {
        let fields = text.split(separator: " ")
        guard fields.count >= 2, Int(fields[0]) == readSyscall, fields[1].hasPrefix("0x") else { return false }
        return Int(fields[1].dropFirst(2), radix: 16) == Int(descriptor)
    }

    /// Bytes waiting on `descriptor` (`FIONREAD`); -1 if it cannot be asked.
    static func queuedBytes(_ descriptor: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : -1
    }

    /// The Unix-domain address `descriptor` is bound to (`getsockname`), if it is such a socket.
    private static func unixAddress(_ descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard rc == 0, address.sun_family == sa_family_t(AF_UNIX),
              length > socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)!) else { return nil }
        return withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
