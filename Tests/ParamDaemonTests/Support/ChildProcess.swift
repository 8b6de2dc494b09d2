import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
public enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "signal \(signal)"
        }
    }
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case spawnFailed(executable: String, errno: Int32)
    case timedOut(what: String, process: String, output: String)
    case exitedEarly(status: ExitStatus, waitingFor: String, process: String, output: String)

    public var description: String {
        switch self {
        case .spawnFailed(let executable, let code):
            "cannot start \(executable): \(String(cString: strerror(code)))"
        case .timedOut(let what, let process, let output):
            "timed out waiting for \(what) from \(process)\n\(output)"
        case .exitedEarly(let status, let what, let process, let output):
            "\(process) ended (\(status)) while waiting for \(what)\n\(output)"
        }
    }
}

/// A child process with its stdout and stderr captured to files (so it never blocks on a full
/// pipe, and the logs survive for a failing test to show).
///
/// Never leaves a child behind: `deinit` sends SIGTERM (SIGKILL after `killTimeout`) to a child
/// still running, so does an `atexit` handler for any child still alive when the test process
/// exits, and every child carries `PARAMD_TEST_OWNER=<test pid>` so that children of a test process
/// that crashed are terminated by the next test run (`TestCleanup.reapOrphans()`).
///
///     let child = try ChildProcess("/usr/bin/oscdump", ["7000"])
///     let line = try await child.waitForLine(containing: "/volume")
///     let status = try await child.stop()   // SIGTERM, wait
public final class ChildProcess: Sendable, CustomStringConvertible {
    public enum Stream: Sendable { case stdout, stderr, either }

    public let pid: pid_t
    public let executable: String
    public let arguments: [String]
    /// Files holding everything the child wrote.
    public let stdoutPath: String
    public let stderrPath: String
    /// How long deinit waits after SIGTERM before SIGKILL.
    public let killTimeout: Duration
    private let status = Mutex<ExitStatus?>(nil)
    /// A pidfd: polls readable once the child has exited (what every wait for the exit blocks on).
    let exitDescriptor: Int32

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`. The child gets
    /// this process's environment plus `environment` (which wins), `JACK_NO_START_SERVER=1` unless
    /// given, stdin from /dev/null, default signal dispositions and an empty signal mask.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
                label: String? = nil, killTimeout: Duration = .seconds(10)) throws {
        TestCleanup.prepare()
        self.executable = executable
        self.arguments = arguments
        self.killTimeout = killTimeout
        let base = TestDirectory.file(label ?? URL(fileURLWithPath: executable).lastPathComponent)
        stdoutPath = base + ".stdout"
        stderrPath = base + ".stderr"

        var env = ProcessInfo.processInfo.environment
        env["JACK_NO_START_SERVER"] = "1"
        for (key, value) in environment { env[key] = value }
        env[TestCleanup.ownerVariable] = String(getpid())

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of the test process's: a descriptor opened without CLOEXEC by another
        // test running at the same moment (a library's socket) would otherwise show up as the
        // child's own (NSMSessionTests count paramd's UDP sockets; CI saw two strays).
        _ = spawnFileActionsAddCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGQUIT] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ChildProcessError.spawnFailed(executable: executable, errno: result) }
        self.pid = pid
        // The child is not reaped before this (only `reap` does), so the pid is still its own.
        exitDescriptor = EventPoll.pidfd(pid)
        precondition(exitDescriptor >= 0, "pidfd_open(\(pid)): \(String(cString: strerror(errno))) (Linux ≥ 5.3 needed)")
        TestCleanup.register(pid, isServer: URL(fileURLWithPath: executable).lastPathComponent == "jackd")
    }

    deinit {
        if !reap() {
            _ = kill(pid, SIGTERM)
            if !waitBlocking(timeout: killTimeout) {
                TestLog.write("\(self) did not stop on SIGTERM within \(killTimeout); its threads:\n\(Self.stacks(of: pid))\nsending SIGKILL")
                _ = kill(pid, SIGKILL)
                _ = waitBlocking(timeout: .seconds(30))
            }
        }
        TestCleanup.unregister(pid)
        close(exitDescriptor)
    }

    public var description: String { "\(URL(fileURLWithPath: executable).lastPathComponent)[\(pid)]" }

    /// Every thread's stack of a process that hung (gdb, at most 30 s), so a hang the tests
    /// catch can be told where it was.
    static func stacks(of pid: pid_t) -> String {
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        gdb.arguments = ["30", "gdb", "-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt"]
        let pipe = Pipe()
        gdb.standardOutput = pipe
        gdb.standardError = pipe
        do { try gdb.run() } catch { return "(no gdb: \(error))" }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        gdb.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        return text.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }.joined(separator: "\n")
    }

    /// Everything the child has written to stdout so far.
    public var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// Everything the child has written to stderr so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The end of both logs, for error messages.
    public func outputSummary(lines: Int = 40) -> String {
        func tail(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        }
        return "--- \(self) stdout (\(stdoutPath)):\n\(tail(standardOutput))\n--- \(self) stderr (\(stderrPath)):\n\(tail(standardError))"
    }

    /// The exit status, reaping the child if it has ended; nil while it runs.
    public var exitStatus: ExitStatus? {
        _ = reap()
        return status.withLock { $0 }
    }

    public var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` to the child, unless it has already been reaped.
    public func signal(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits until a line of the child's output contains `text`, and returns that line. Throws if
    /// the child exits first or the time runs out.
    @discardableResult
    public func waitForLine(containing text: String, on stream: Stream = .either,
                            timeout: Duration = .seconds(15)) async throws -> String {
        try await waitForLine(on: stream, timeout: timeout, describedAs: "'\(text)'") { $0.contains(text) }
    }

    /// Waits until a whole line of the child's output is `text` (`ready`, not a port name
    /// holding the word).
    @discardableResult
    public func waitForLine(exactly text: String, on stream: Stream = .either,
                            timeout: Duration = .seconds(15)) async throws -> String {
        try await waitForLine(on: stream, timeout: timeout, describedAs: "the line '\(text)'") { $0 == text }
    }

    /// Waits until a line of the child's output satisfies `matches`, and returns that line.
    /// Throws if the child exits first or the time runs out.
    @discardableResult
    public func waitForLine(on stream: Stream = .either, timeout: Duration = .seconds(15),
                            describedAs what: String, where matches: (Substring) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        // Woken by a write to either file (inotify) or by the exit (pidfd); each wake reads on
        // from the last complete line looked at.
        let watch = outputWatch()
        var readers = (stream != .stderr ? [LineReader(path: stdoutPath)] : [])
            + (stream != .stdout ? [LineReader(path: stderrPath)] : [])
        while true {
            for i in readers.indices {
                if let line = readers[i].first(where: matches) { return line }
            }
            if let status = exitStatus {
                // One last look: the line may have been written just before the exit.
                for source in [standardOutput, standardError] {
                    if let line = source.split(separator: "\n").first(where: matches) { return String(line) }
                }
                throw ChildProcessError.exitedEarly(
                    status: status, waitingFor: what, process: "\(self)", output: outputSummary())
            }
            if ContinuousClock.now >= deadline {
                throw ChildProcessError.timedOut(what: what, process: "\(self)", output: outputSummary())
            }
            try Task.checkCancellation()
            _ = await EventPoll.wait([watch.descriptor, exitDescriptor], until: deadline)
            watch.drain()
        }
    }

    /// An event for waits on what the child writes: fires on each write to its stdout or stderr.
    public func outputWatch() -> FileWatch { FileWatch([stdoutPath, stderrPath]) }

    /// Waits for the child to exit and returns its status; throws `timedOut` (leaving it running)
    /// when it does not exit in time.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(15)) async throws -> ExitStatus {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exitStatus { return status }
            if ContinuousClock.now >= deadline {
                throw ChildProcessError.timedOut(what: "exit", process: "\(self)", output: outputSummary())
            }
            try Task.checkCancellation()
            _ = await EventPoll.wait([exitDescriptor], until: deadline)
        }
    }

    /// `waitForExit` blocking the calling thread (for code that cannot await): the status, or nil
    /// when the child still runs after `timeout`.
    public func waitForExitBlocking(timeout: Duration) -> ExitStatus? {
        waitBlocking(timeout: timeout) ? exitStatus : nil
    }

    /// Sends `signal` (SIGTERM by default) and waits for the exit. If the child has not exited
    /// after `timeout`, it is killed with SIGKILL (logged) and `timedOut` is thrown.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(15)) async throws -> ExitStatus {
        self.signal(signal)
        do {
            return try await waitForExit(timeout: timeout)
        } catch let error as ChildProcessError {
            TestLog.write("\(self) did not exit within \(timeout) of signal \(signal); sending SIGKILL")
            self.signal(SIGKILL)
            _ = try? await waitForExit(timeout: .seconds(30))
            throw error
        }
    }

    /// Reaps the child if it has exited. Returns true once it has been reaped.
    private func reap() -> Bool {
        status.withLock { status in
            if status != nil { return true }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                // WIFEXITED / WTERMSIG are macros; decode by hand.
                let signal = raw & 0x7f
                status = signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
                TestCleanup.unregister(pid)
                return true
            }
            if result == -1 && errno == ECHILD {
                status = .exited(-1)  // reaped elsewhere
                return true
            }
            return false
        }
    }

    private func waitBlocking(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !reap() {
            if ContinuousClock.now >= deadline { return false }
            _ = EventPoll.wait([exitDescriptor], until: deadline)  // readable once it has exited
        }
        return true
    }
}

/// Reads a file a child is still writing from where it left off: each look starts at the first
/// line not yet complete at the look before, so a wake costs what was written since.
private struct LineReader {
    let path: String
    var offset: off_t = 0

    /// The first line from `offset` on that `matches` (an unfinished last line too, as before);
    /// otherwise moves `offset` past the complete lines read.
    mutating func first(where matches: (Substring) -> Bool) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let at = offset + off_t(bytes.count)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, at) }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        if let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first(where: matches) {
            return String(line)
        }
        if let newline = bytes.lastIndex(of: UInt8(ascii: "\n")) { offset += off_t(newline + 1) }
        return nil
    }
}

extension ChildProcess {
    /// Runs a command to its end: its status and both outputs.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           label: String, timeout: Duration = .seconds(60)) async throws -> (ExitStatus, String, String) {
        let child = try ChildProcess(executable, arguments, environment: environment, label: label)
        let status = try await child.waitForExit(timeout: timeout)
        return (status, child.standardOutput, child.standardError)
    }
}

/// glibc ≥ 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does
/// not show (it needs `_GNU_SOURCE`). A plain C function: a pointer and an int in, an int out.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnFileActionsAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
