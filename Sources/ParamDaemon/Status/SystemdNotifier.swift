import Foundation

/// systemd's notification protocol (sd_notify(3)), written by hand: each message is one datagram
/// of newline-separated `KEY=value` assignments sent to the `AF_UNIX` datagram socket named by
/// `$NOTIFY_SOCKET`: a filesystem path, or an abstract name written with a leading `@`.
/// Control thread.
final class SystemdNotifier {
    let socketName: String
    /// Seconds between `WATCHDOG=1` pings: half of `$WATCHDOG_USEC`; nil when systemd asked for
    /// no watchdog, or asked another process (`$WATCHDOG_PID`).
    let watchdogInterval: Double?
    private let fd: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0
    private var failed = false
    /// The first error sending, for the log (reported once).
    private(set) var lastError: String?

    /// nil without `$NOTIFY_SOCKET` (not started by systemd as `Type=notify`).
    init?(environment: [String: String]) {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        socketName = name
        if let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0,
           environment["WATCHDOG_PID"].map({ pid_t($0) == getpid() }) ?? true {
            watchdogInterval = Double(usec) / 2e6
        } else {
            watchdogInterval = nil
        }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)

        // sockaddr_un: an abstract name starts with a NUL byte and has no terminator; its
        // length is exactly the bytes used.
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            lastError = "NOTIFY_SOCKET is too long"
            failed = true
            return
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (i, b) in bytes.enumerated() { path[i] = b }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        addressLength = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends one message, e.g. `"READY=1\nSTATUS=Running"`. Returns false when it could not.
    @discardableResult
    func send(_ message: String) -> Bool {
        guard fd >= 0, !failed else { return false }
        var bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeMutableBytes { buffer in
                    sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), sa, addressLength)
                }
            }
        }
        if sent < 0 {
            if lastError == nil { lastError = "cannot send to NOTIFY_SOCKET \(socketName): \(String(cString: strerror(errno)))" }
            return false
        }
        return true
    }

    func ready(status: String) { send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())") }
    func status(_ text: String) { send("STATUS=\(text)") }
    func watchdog() { send("WATCHDOG=1") }
    func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }
    func reloading() { send("RELOADING=1\nSTATUS=Reloading the config file") }
}
