import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

public struct JackServerError: Error, CustomStringConvertible {
    public var description: String
}

/// A private JACK server for one test or one suite: `jackd -n <unique> -R -d dummy -r RATE -p PERIOD`.
///
///     try await JackServer.with(rate: 48000, period: 256) { server in … }  // always stopped
///     @Suite(.jackServer(rate: 48000, period: 256)) struct E2E { … }  // JackServer.current
///
/// JACK2 allows 8 servers per machine and leaks the slot of a server killed with SIGKILL, so at
/// most `$PARAMD_TEST_MAX_SERVERS` (default 3) run at once per test process and each is stopped
/// with SIGTERM. Naming, slot reclaiming, jack_lsp quirks: Tests/README.md, "JackServer".
public final class JackServer: Sendable, CustomStringConvertible {
    public let name: String
    public let sampleRate: Int
    public let period: Int
    public let process: ChildProcess
    private let stopped = Mutex(false)

    /// The server of the enclosing `.jackServer` trait, if any.
    @TaskLocal public static var current: JackServer?

    /// `current`, or an error saying the test needs the `.jackServer` trait.
    public static func required() throws -> JackServer {
        guard let server = current else {
            throw JackServerError(description: "no JackServer.current: add .jackServer() to the test or suite")
        }
        return server
    }

    private static let counter = Atomic<Int>(0)

    /// A server name no server of this test process has had: `paramd-test-<pid>-<label>-<n>`.
    public static func uniqueName(_ label: String) -> String {
        avoidingLspCrash("paramd-test-\(getpid())-\(label)-\(counter.add(1, ordering: .relaxed).newValue)")
    }

    /// jack_lsp (jack-tools 1.9.21) dies in malloc for a server name of exactly 24 characters
    /// (seen here: 23 and 25 work, 24 does not), so no test server gets such a name.
    static func avoidingLspCrash(_ name: String) -> String { name.count == 24 ? name + "x" : name }
    private static let slots = AsyncSemaphore(
        Int(ProcessInfo.processInfo.environment["PARAMD_TEST_MAX_SERVERS"] ?? "") ?? 3)

    /// A server dropped without `stop()`: its ChildProcess deinit sends SIGTERM and waits.
    deinit {
        if !stopped.withLock({ $0 }) { JackServer.slots.release() }
    }

    public var description: String { "jackd \(name) (\(sampleRate) Hz, \(period) frames)" }

    /// The environment that points JACK clients (and paramd) at this server.
    public var environment: [String: String] { ["JACK_DEFAULT_SERVER": name, "JACK_NO_START_SERVER": "1"] }

    private init(name: String, sampleRate: Int, period: Int, process: ChildProcess) {
        self.name = name
        self.sampleRate = sampleRate
        self.period = period
        self.process = process
    }

    /// Starts a server and waits until clients can connect (up to `timeout`: generous, since
    /// the first servers start while the unit-test suites load both cores of a 2-core box).
    /// `name` names it (to start a server again under the name a client is waiting for); by
    /// default a fresh `paramd-test-<pid>-<n>`.
    ///
    /// `namespace` runs jackd in that network namespace (`ip netns exec`, MultiHost tests);
    /// `driver` replaces `dummy -r RATE -p PERIOD` (e.g. `["net", "-a", "10.0.0.1"]`, a
    /// NetJack2 slave, whose rate and period the master sets).
    public static func start(name: String? = nil, rate: Int = 48000, period: Int = 256, realtime: Bool = true,
                             timeout: Duration = .seconds(60), namespace: String? = nil,
                             driver: [String]? = nil) async throws -> JackServer {
        await slots.acquire()
        await reclaimStaleRegistrations.value
        let n = counter.add(1, ordering: .relaxed).newValue
        let server: JackServer
        do {
            let name = name ?? avoidingLspCrash("paramd-test-\(getpid())-\(n)")
            let process = try spawnJackd(name: name, rate: rate, period: period, realtime: realtime,
                                         namespace: namespace, driver: driver)
            server = JackServer(name: name, sampleRate: rate, period: period, process: process)
        } catch {
            slots.release()
            throw error
        }
        do {
            try await server.waitUntilAvailable(timeout: timeout)
        } catch {
            try? await server.stop()  // releases the slot
            throw error
        }
        return server
    }

    /// JACK2 keeps its servers in `/dev/shm/jack-shm-registry` (8 slots) and frees a dead
    /// server's slot only when a server of the same name registers again. A test jackd killed
    /// (a CI run cut short, a hung NetJack2 master) would hold its slot for good, and later
    /// runs fail with "Too many servers already active". So, once per test process: each
    /// `paramd-test-` entry whose pid is gone is reclaimed by starting and stopping a server of
    /// its name. Entries: a pid (4 bytes) before "jack-UID:NAME:".
    private static let reclaimStaleRegistrations = Task<Void, Never> {
        guard let data = FileManager.default.contents(atPath: "/dev/shm/jack-shm-registry") else { return }
        let bytes = [UInt8](data)
        var stale: [String] = []
        var i = 4
        while i + 5 < bytes.count {
            if bytes[i] == UInt8(ascii: "j"), bytes[i..<i + 5].elementsEqual("jack-".utf8) {
                var j = i + 5
                while j < bytes.count && bytes[j] != UInt8(ascii: ":") && bytes[j] != 0 { j += 1 }
                let start = j + 1
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: ":") && bytes[end] != 0 { end += 1 }
                let pid = bytes[i - 4..<i].reversed().reduce(Int32(0)) { $0 << 8 | Int32($1) }
                if end > start, end < bytes.count, bytes[end] == UInt8(ascii: ":"), pid > 0,
                   kill(pid, 0) != 0 && errno == ESRCH {
                    let name = String(decoding: bytes[start..<end], as: UTF8.self)
                    if name.hasPrefix("paramd-test-") { stale.append(name) }
                }
                i = end
            }
            i += 1
        }
        for name in stale {
            TestLog.write("JACK's registry holds \(name) of a process that is gone: reclaiming its slot")
            guard let process = try? spawnJackd(name: name, rate: 48000, period: 1024, realtime: false) else { continue }
            try? await waitUntilAvailable(name: name, process: process, timeout: .seconds(20))
            _ = try? await process.stop(signal: SIGTERM, timeout: .seconds(30))
        }
    }

    private static func spawnJackd(name: String, rate: Int, period: Int, realtime: Bool,
                                   namespace: String? = nil, driver: [String]? = nil) throws -> ChildProcess {
        // jackd: -R realtime, -r no realtime; -t client timeout (ms), generous for a busy 2-core box.
        var arguments = ["-n", name, realtime ? "-R" : "-r", "-t", "2000", "-d"]
            + (driver ?? ["dummy", "-r", String(rate), "-p", String(period)])
        var executable = "jackd"
        if let namespace {
            arguments = ["netns", "exec", namespace, "jackd"] + arguments
            executable = "/usr/sbin/ip"
        }
        return try ChildProcess(
            executable, arguments, environment: ["JACK_NO_AUDIO_RESERVATION": "1"], label: "jackd-\(name)",
            killTimeout: .seconds(30))
    }

    /// Runs `body` with a fresh server and stops the server afterwards, whatever happens.
    /// `namespace`: started inside that network namespace (NetworkLab's hosts).
    public static func with<R>(name: String? = nil, rate: Int = 48000, period: Int = 256, realtime: Bool = true,
                               namespace: String? = nil, _ body: (JackServer) async throws -> R) async throws -> R {
        let server = try await start(name: name, rate: rate, period: period, realtime: realtime, namespace: namespace)
        let result: R
        do {
            result = try await body(server)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        return result
    }

    /// `with` for a test that takes the server away and brings it back under the same name (a
    /// server loss): `body` gets a `RestartableJackServer` to stop and start again, and whichever
    /// server runs when `body` ends, or throws, is stopped.
    public static func withRestarts<R>(name: String, rate: Int = 48000, period: Int = 256,
                                       _ body: (RestartableJackServer) async throws -> R) async throws -> R {
        let servers = RestartableJackServer(try await start(name: name, rate: rate, period: period))
        let result: R
        do {
            result = try await body(servers)
        } catch {
            try? await servers.current.stop()
            throw error
        }
        try await servers.current.stop()
        return result
    }

    /// True when `jack_lsp -s NAME` can connect.
    public func isAvailable() async -> Bool { await JackServer.isAvailable(name: name) }

    private static func isAvailable(name: String) async -> Bool {
        await withLspTurn {
            guard let probe = try? ChildProcess("jack_lsp", ["-s", name], environment: ["JACK_NO_START_SERVER": "1"], label: "jack_lsp")
            else { return false }
            return (try? await probe.waitForExit(timeout: .seconds(10))) == .exited(0)
        }
    }

    /// One `jack_lsp` at a time in this test process. JACK2 names a client's notification
    /// socket after the client alone (`/dev/shm/jack_lsp_UID_0`, whatever the server): two
    /// `jack_lsp` opening at the same moment, even on different servers, take each other's
    /// socket, and both fail (CI: "Cannot connect to client name = lsp", "Broken pipe").
    static func withLspTurn<R>(_ body: () async throws -> R) async rethrows -> R {
        await lspTurn.acquire()
        defer { lspTurn.release() }
        return try await body()
    }
    private static let lspTurn = AsyncSemaphore(1)

    private func waitUntilAvailable(timeout: Duration) async throws {
        try await JackServer.waitUntilAvailable(name: name, process: process, timeout: timeout)
    }

    /// jackd listens on `/dev/shm/jack_NAME_UID_0` (JACK2's socket folder): a wake for each
    /// entry made in /dev/shm (inotify) and for the exit (pidfd); `jack_lsp` asked only once the
    /// socket is there. A `jack_lsp` that fails makes and removes its own entries there, which
    /// wakes the wait again.
    private static func waitUntilAvailable(name: String, process: ChildProcess, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        let socket = "/dev/shm/jack_\(name)_\(getuid())_0"
        let folder = FileWatch(["/dev/shm"])
        while true {
            if let status = process.exitStatus {
                throw JackServerError(description: "jackd \(name) exited (\(status)) while starting\n\(process.outputSummary())")
            }
            if FileManager.default.fileExists(atPath: socket), await isAvailable(name: name) { return }
            if ContinuousClock.now >= deadline {
                throw JackServerError(description: "jackd \(name) did not answer within \(timeout)\n\(process.outputSummary())")
            }
            try Task.checkCancellation()
            _ = await EventPoll.wait([folder.descriptor, process.exitDescriptor], until: deadline)
            folder.drain()
        }
    }

    /// The server's ports (`jack_lsp -s NAME`).
    public func ports() async throws -> [String] {
        try await jackLsp([]).split(separator: "\n").map(String.init)
    }

    /// Every connection, as `[port: [connected ports]]` (`jack_lsp -c`).
    public func connections() async throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        var current: String?
        for line in try await jackLsp(["-c"]).split(separator: "\n") {
            if line.hasPrefix("   ") {
                if let port = current { result[port, default: []].append(line.trimmingCharacters(in: .whitespaces)) }
            } else {
                current = String(line)
                result[String(line)] = result[String(line)] ?? []
            }
        }
        return result
    }

    /// jack_lsp opens a client, and jackd notifies every other client of it and waits for
    /// each: one closing at that moment once held it past 10 s (a CI run). A jack_lsp that has
    /// not answered in 10 s is killed and asked once more; one that fails is an error.
    private func jackLsp(_ arguments: [String]) async throws -> String {
        var answer: (lsp: ChildProcess, status: ExitStatus)? = nil
        for attempt in 1...2 where answer == nil {
            answer = try await JackServer.withLspTurn {
                let lsp = try ChildProcess("jack_lsp", ["-s", name] + arguments, environment: environment, label: "jack_lsp")
                guard attempt == 1 else { return (lsp, try await lsp.waitForExit(timeout: .seconds(10))) }
                do { return (lsp, try await lsp.waitForExit(timeout: .seconds(10))) } catch {
                    _ = try? await lsp.stop(signal: SIGKILL, timeout: .seconds(5))
                    TestLog.write("jack_lsp -s \(name) \(arguments.joined(separator: " ")) did not answer in 10 s: asked again")
                    return nil
                }
            }
        }
        guard let (lsp, status) = answer else { throw JackServerError(description: "jack_lsp -s \(name): no answer") }
        guard status == .exited(0) else {
            throw JackServerError(description: "jack_lsp -s \(name) failed (\(status))\n\(lsp.outputSummary())")
        }
        return lsp.standardOutput
    }

    /// Stops the server: SIGTERM, then waits for it to exit. Idempotent. A server that has not
    /// exited within `timeout` is killed, its slot reclaimed, and an error thrown, unless
    /// `killIsAnError` is false (for a jackd whose own exit is known to hang, e.g. a NetJack2
    /// master with `netmanager` loaded: logged, not a test failure).
    public func stop(timeout: Duration = .seconds(30), killIsAnError: Bool = true) async throws {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        defer { JackServer.slots.release() }
        do {
            try await stopProcess(timeout: timeout)
        } catch where !killIsAnError {
            TestLog.write("\(self): killed after \(timeout) without exiting on SIGTERM (tolerated here)")
        }
    }

    private func stopProcess(timeout: Duration) async throws {
        do {
            let status = try await process.stop(signal: SIGTERM, timeout: timeout)
            if status != .exited(0) && status != .signaled(SIGTERM) {
                TestLog.write("\(self) ended with \(status) on SIGTERM")
            }
        } catch {
            // process.stop has sent SIGKILL: the slot is lost until this name starts and stops cleanly.
            TestLog.write("\(self) did not stop on SIGTERM within \(timeout) and was killed; reclaiming its slot")
            if let again = try? JackServer.spawnJackd(name: name, rate: sampleRate, period: period, realtime: true) {
                try? await JackServer.waitUntilAvailable(name: name, process: again, timeout: .seconds(20))
                _ = try? await again.stop(signal: SIGTERM, timeout: .seconds(30))
            }
            throw JackServerError(description: "\(self) did not stop on SIGTERM\n\(process.outputSummary())")
        }
    }
}

/// One server name a test stops and starts again (`JackServer.withRestarts`): `current` is the
/// server started last, running or stopped.
public final class RestartableJackServer: Sendable {
    private let server: Mutex<JackServer>

    init(_ server: JackServer) { self.server = Mutex(server) }

    public var current: JackServer { server.withLock { $0 } }

    /// Stops the current server (SIGTERM, waited for): the server goes away.
    public func stop() async throws { try await current.stop() }

    /// Starts a server again under the same name, rate and period; it becomes `current`.
    @discardableResult
    public func restart() async throws -> JackServer {
        let old = current
        let new = try await JackServer.start(name: old.name, rate: old.sampleRate, period: old.period)
        server.withLock { $0 = new }
        return new
    }
}

/// A counting semaphore for async code (FIFO).
final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(available: max(1, count))) }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// `.jackServer(rate:period:)`: one private JACK server for the test or suite it is applied to,
/// available as `JackServer.current` (or `try JackServer.required()`), stopped afterwards.
public struct JackServerTrait: SuiteTrait, TestTrait, TestScoping {
    public var rate: Int
    public var period: Int
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await JackServer.with(rate: rate, period: period) { server in
            try await JackServer.$current.withValue(server) { try await function() }
        }
    }
}

extension Trait where Self == JackServerTrait {
    public static func jackServer(rate: Int = 48000, period: Int = 256) -> JackServerTrait {
        JackServerTrait(rate: rate, period: period)
    }
}
