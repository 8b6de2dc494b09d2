import Foundation
import ParamCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// systemd's side of sd_notify(3): a Unix datagram socket whose name goes in `$NOTIFY_SOCKET`,
/// bound either in the filesystem or in the abstract namespace (`@name`). A thread of its own
/// takes every datagram as it arrives and notes the time.
final class NotifyListener: Sendable {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case filesystem, abstract
        var testDescription: String { rawValue }
    }

    struct Message: Sendable {
        let time: ContinuousClock.Instant
        let text: String
        /// The `KEY=value` lines as a dictionary.
        var fields: [String: String] {
            var out: [String: String] = [:]
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
            }
            return out
        }
    }

    /// What the listening thread shares with the test.
    private final class Shared: Sendable {
        let received = Mutex<[Message]>([])
        /// Signalled for each message received.
        let arrivals = Broadcast()
        /// deinit's word to the thread to end, and the thread's word that it has.
        let stop = Changes()
        let finished = DispatchSemaphore(value: 0)
    }

    /// What goes in `$NOTIFY_SOCKET`.
    let socketName: String
    private let fd: Int32
    private let path: String?
    private let shared = Shared()

    init(_ kind: Kind) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket(AF_UNIX)", code: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        switch kind {
        case .filesystem:
            let file = TestDirectory.file("notify") + ".sock"
            path = file
            socketName = file
            bytes = Array(file.utf8)
        case .abstract:
            path = nil
            let name = "paramd-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            socketName = "@" + name
            bytes = [0] + Array(name.utf8)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(2 + bytes.count + (kind == .filesystem ? 1 : 0))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "bind \(socketName)", code: code)
        }
        self.fd = fd
        let shared = self.shared
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                                   pollfd(fd: shared.stop.descriptor, events: Int16(POLLIN), revents: 0)]
                if poll(&descriptors, 2, -1) < 0 && errno != EINTR { break }
                if descriptors[1].revents != 0 { break }
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard n > 0 else { break }
                    let message = Message(time: .now, text: String(decoding: buffer[0..<n], as: UTF8.self))
                    shared.received.withLock { $0.append(message) }
                    shared.arrivals.signal()
                }
            }
            shared.finished.signal()
        }
        thread.name = "notify-listener"
        thread.start()
    }

    deinit {
        shared.stop.signal()
        shared.finished.wait()  // the thread no longer reads fd
        close(fd)
        if let path { unlink(path) }
    }

    /// The environment for paramd: `NOTIFY_SOCKET`, and `WATCHDOG_USEC` when given.
    func environment(watchdogMicroseconds: Int? = nil) -> [String: String] {
        var env = ["NOTIFY_SOCKET": socketName]
        if let watchdogMicroseconds { env["WATCHDOG_USEC"] = String(watchdogMicroseconds) }
        return env
    }

    /// Every message so far, in order of arrival.
    var messages: [Message] { shared.received.withLock { $0 } }

    /// Waits for the first message with `key=value` (any value when nil) and returns it.
    @discardableResult
    func waitFor(_ key: String, _ value: String? = nil, timeout: Duration = .seconds(10)) async throws -> Message {
        let arrivals = self.arrivals()
        var found: Message?
        do {
            try await waitUntil("\(key)=\(value ?? "…")", timeout: timeout, on: [arrivals]) {
                found = messages.first { m in m.fields[key].map { value == nil || $0 == value } ?? false }
                return found != nil
            }
        } catch is WaitError {
            throw WaitError(what: "\(key)=\(value ?? "…") on \(socketName); got \(messages.map(\.text))", timeout: timeout)
        }
        return found!
    }

    /// An event for waits on what arrives: fires on each message.
    func arrivals() -> Changes { shared.arrivals.subscribe() }

    /// The times of every `WATCHDOG=1` so far.
    var watchdogTimes: [ContinuousClock.Instant] {
        messages.filter { $0.fields["WATCHDOG"] == "1" }.map(\.time)
    }
}

/// A folder standing in for a user's home: `config/` and `state/` as XDG_CONFIG_HOME and
/// XDG_STATE_HOME, so paramd's default paths land in it.
struct TestHome {
    let path: String
    init(_ label: String) {
        path = TestDirectory.file("home-\(label)")
        try? FileManager.default.createDirectory(atPath: path + "/config/paramd", withIntermediateDirectories: true)
    }
    var environment: [String: String] { ["XDG_CONFIG_HOME": path + "/config", "XDG_STATE_HOME": path + "/state"] }
    var configFile: String { path + "/config/paramd/config.toml" }
    var stateFile: String { path + "/state/paramd/state.json" }
    var stateFolder: String { path + "/state/paramd" }

    func writeConfig(_ text: String) throws {
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// A home whose config maps CC 7 to volume; `more` are further lines of that mapping.
    static func volumeOnCC7(_ label: String, _ more: String...) throws -> TestHome {
        let home = TestHome(label)
        try home.writeConfig((["[[midi]]", "param = \"volume\"", "cc = 7"] + more).joined(separator: "\n"))
        return home
    }
}

/// Starts paramd without waiting for it to be ready (for tests where it must wait, or fail).
func launchParamd(server: String, name: String, port: UInt16, arguments: [String] = [],
                  environment: [String: String]) throws -> ChildProcess {
    try ChildProcess(try Binaries.paramd(),
                     ["--server", server, "--name", name, "--port", "\(port)", "--http-port", "0"] + arguments,
                     environment: environment, label: name)
}

extension OSCClient {
    /// `/<param>/get`: the sounding value and the target.
    func get(_ parameter: String) async throws -> (value: Float, target: Float)? {
        try send("/\(parameter)/get")
        guard let messages = await receive(until: "/\(parameter)/target", timeout: .seconds(3)),
              let value = messages.last(where: { $0.address == "/\(parameter)" })?.firstFloat,
              let target = messages.last?.firstFloat else { return nil }
        return (value, target)
    }

    /// `/ping` answered with `/pong` within `timeout`.
    func pings(timeout: Duration = .seconds(2)) async throws -> Bool {
        try send("/ping")
        return await receive(until: "/pong", timeout: timeout) != nil
    }
}
