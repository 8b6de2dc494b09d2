import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Something a wait can block on: a descriptor that polls readable when what the wait checks
/// may have changed (a file written, a reply collected). `drain` takes the readiness away
/// again, so the next wait blocks until the next change.
public protocol EventSource: Sendable {
    var descriptor: Int32 { get }
    func drain()
}

/// Waits are blocking `poll`s with a deadline (issue 34 item 7: tests wait for events, not time).
public enum EventPoll {
    /// Blocks until one of `descriptors` is readable (true) or `deadline` passes (false).
    public static func wait(_ descriptors: [Int32], until deadline: ContinuousClock.Instant) -> Bool {
        var set = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let left = deadline - .now
            let milliseconds = left <= .zero ? 0 : Int32(min(left.milliseconds.rounded(.up), 3_600_000))
            let ready = poll(&set, nfds_t(set.count), milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || ContinuousClock.now >= deadline { return false }
        }
    }

    /// The same wait on a thread of its own (a blocking `poll` on Swift's cooperative threads would
    /// hold up other tasks); it ends early when the task is cancelled.
    public static func wait(_ descriptors: [Int32], until deadline: ContinuousClock.Instant) async -> Bool {
        let cancel = Changes()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: wait(descriptors + [cancel.descriptor], until: deadline)) }.start()
            }
        } onCancel: {
            cancel.signal()
        }
    }

    /// `pidfd_open(2)` (Linux ≥ 5.3): a descriptor that polls readable once `pid` has exited, our
    /// child or not. -1 when the process is gone (or the kernel lacks it).
    public static func pidfd(_ pid: pid_t) -> Int32 {
        Int32(truncatingIfNeeded: linuxSyscall(pidfdOpenNumber, Int(pid), 0))
    }
    /// `SYS_pidfd_open`: the same number on every architecture Linux numbers alike (x86_64, aarch64).
    private static let pidfdOpenNumber = 434
}

/// `syscall(2)` with two arguments (Swift does not import the variadic C declaration; glibc's
/// `syscall` takes its arguments in registers either way).
@_silgen_name("syscall")
private func linuxSyscall(_ number: Int, _ first: Int, _ second: Int) -> Int

/// An in-process event: `signal()` from whatever collects something (a reader thread), and a
/// wait on `descriptor` wakes. A non-blocking socket pair: a byte written makes it readable.
public final class Changes: EventSource {
    public let descriptor: Int32
    private let writer: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        precondition(socketpair(AF_UNIX, type, 0, &fds) == 0, "socketpair: \(String(cString: strerror(errno)))")
        descriptor = fds[0]
        writer = fds[1]
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    public func signal() {
        var byte: UInt8 = 1
        _ = send(writer, &byte, 1, Int32(MSG_DONTWAIT))  // a full queue is already readable
    }

    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
    }
}

/// `Changes` for any number of waits at once: each wait subscribes its own (one shared would
/// be drained by whichever wait woke first).
public final class Broadcast: Sendable {
    private struct Subscriber: Sendable { weak var changes: Changes? }
    private let subscribers = Mutex<[Subscriber]>([])

    public init() {}

    public func subscribe() -> Changes {
        let changes = Changes()
        subscribers.withLock {
            $0.removeAll { $0.changes == nil }
            $0.append(Subscriber(changes: changes))
        }
        return changes
    }

    public func signal() {
        for subscriber in subscribers.withLock({ $0 }) { subscriber.changes?.signal() }
    }
}

/// inotify on files or folders: readable when one of them is written, closed after writing,
/// or (a folder) gains an entry. A path that does not exist yet is watched through its nearest
/// folder that does, and watched itself from the first wake after it appears. A file replaced
/// by a rename (a state file, a report) is best watched through its folder.
public final class FileWatch: EventSource {
    public let descriptor: Int32
    private let paths: [String]
    private static let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_ATTRIB)

    public init(_ paths: [String]) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        precondition(descriptor >= 0, "inotify_init1: \(String(cString: strerror(errno)))")
        self.paths = paths
        addWatches()
    }

    deinit { close(descriptor) }

    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        addWatches()  // a path that appeared since (watching one twice is harmless)
    }

    private func addWatches() {
        for path in paths {
            var candidate = path
            while inotify_add_watch(descriptor, candidate, Self.mask) < 0 && candidate.count > 1 {
                candidate = (candidate as NSString).deletingLastPathComponent
            }
        }
    }
}

/// For state only reachable by asking (paramd's `/status` and `/get` over OSC, `jack_lsp`, a
/// UDP port being bound, /proc counters), which gives no event when it changes: asks again every
/// `interval` until `condition` holds; throws `WaitError` with `description` after `timeout`.
/// Everything that has an event waits with `waitUntil(_:on:)` instead.
public func pollUntil(_ description: String, timeout: Duration = .seconds(10), interval: Duration = .milliseconds(20),
                      _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        if ContinuousClock.now >= deadline { throw WaitError(what: description, timeout: timeout) }
        // sleep: pollUntil: nothing to wait on for state only reachable by asking (see above)
        try await Task.sleep(for: interval)
    }
}

/// Waits until `condition` holds, re-evaluating it each time one of `events` fires; throws
/// `WaitError` with `description` after `timeout`.
public func waitUntil(_ description: String, timeout: Duration = .seconds(10), on events: [any EventSource],
                      _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        if ContinuousClock.now >= deadline { throw WaitError(what: description, timeout: timeout) }
        try Task.checkCancellation()
        _ = await EventPoll.wait(events.map(\.descriptor), until: deadline)
        for event in events { event.drain() }
    }
}

public struct WaitError: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}

extension Duration {
    /// In milliseconds, fractions kept.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
