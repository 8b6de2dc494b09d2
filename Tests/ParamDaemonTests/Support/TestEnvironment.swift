import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line on stderr, for what a person reading a test log should know (a SIGKILL, an orphan).
public enum TestLog {
    public static func write(_ line: String) {
        FileHandle.standardError.write(Data("[paramd-tests] \(line)\n".utf8))
    }
}

/// A per-run scratch folder for logs and recordings: `$TMPDIR/paramd-tests-<pid>`, removed when
/// the test process exits unless `PARAMD_KEEP_TEST_FILES=1`.
public enum TestDirectory {
    private static let counter = Atomic<Int>(0)

    public static let path: String = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = "\(base)/paramd-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A fresh path inside the folder: `<path>/<label>-<n>` (nothing is created).
    public static func file(_ label: String) -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        return "\(path)/\(label)-\(n)"
    }

    static func removeAtExit() {
        if ProcessInfo.processInfo.environment["PARAMD_KEEP_TEST_FILES"] == "1" { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Makes sure no child of a test run outlives it.
public enum TestCleanup {
    /// Set in every child's environment to the pid of the test process that started it.
    public static let ownerVariable = "PARAMD_TEST_OWNER"

    /// Live children, and whether each is a JACK server (servers are stopped after their clients:
    /// a client closing while its server shuts down can make both wait for each other's timeouts).
    private static let live = Mutex<[pid_t: Bool]>([:])

    private static let prepared: Void = {
        reapOrphans()
        atexit(terminateChildrenAtExit)
    }()

    /// Called before the first child starts: reaps orphans of crashed runs, installs the exit hook.
    public static func prepare() { _ = prepared }

    static func register(_ pid: pid_t, isServer: Bool) { live.withLock { $0[pid] = isServer } }
    static func unregister(_ pid: pid_t) { live.withLock { _ = $0.removeValue(forKey: pid) } }

    /// SIGTERM to every process whose `PARAMD_TEST_OWNER` names a test process that no longer
    /// exists (its children were left behind by a crash): clients first, then JACK servers, each
    /// group given up to 15 s to go. Processes of test runs still alive, and anything else, are
    /// left alone.
    public static func reapOrphans() {
        let me = getpid()
        var orphans: [(pid: pid_t, isServer: Bool, command: String, owner: pid_t)] = []
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), pid != me,
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { continue }
            let prefix = Array("\(ownerVariable)=".utf8)
            for variable in data.split(separator: 0) where variable.starts(with: prefix) {
                guard let owner = pid_t(String(decoding: variable.dropFirst(prefix.count), as: UTF8.self)),
                      owner != me, kill(owner, 0) == -1, errno == ESRCH
                else { continue }
                let command = (FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"))
                    .map { String(decoding: $0.map { $0 == 0 ? 32 : $0 }, as: UTF8.self) } ?? "?"
                let name = FileManager.default.contents(atPath: "/proc/\(entry)/comm")
                    .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
                orphans.append((pid, name == "jackd", command, owner))
            }
        }
        for servers in [false, true] {
            let group = orphans.filter { $0.isServer == servers }
            for orphan in group {
                TestLog.write("terminating \(orphan.pid) (\(orphan.command)), left behind by test process \(orphan.owner)")
                kill(orphan.pid, SIGTERM)
            }
            // Not our children (no waitpid), but a pidfd polls readable when they exit.
            waitForExits(group.map(\.pid), until: .now + .seconds(15))
            for orphan in group where kill(orphan.pid, 0) == 0 {
                TestLog.write("\(orphan.pid) still running 15 s after SIGTERM; left alone")
            }
        }
        // Scratch folders of test processes that are gone.
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        where entry.hasPrefix("paramd-tests-") {
            if let owner = pid_t(entry.dropFirst("paramd-tests-".count)), owner != me,
               kill(owner, 0) == -1, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: "\(base)/\(entry)")
            }
        }
    }

    /// The `atexit` hook: SIGTERM to every child still running, up to 15 s to exit, then SIGKILL.
    static func terminateAll() {
        let children = live.withLock { $0 }
        for servers in [false, true] {
            let pids = children.filter { $0.value == servers }.map(\.key)
            for pid in pids { kill(pid, SIGTERM) }
            waitForExits(pids, until: .now + .seconds(servers ? 30 : 15))
            let remaining = pids.filter { waitpid($0, nil, WNOHANG) == 0 }
            for pid in remaining {
                TestLog.write("child \(pid) still running at exit after SIGTERM; its threads:\n\(ChildProcess.stacks(of: pid))\nsending SIGKILL")
                kill(pid, SIGKILL)
                waitpid(pid, nil, 0)
            }
        }
        TestDirectory.removeAtExit()
    }
}

extension TestCleanup {
    /// Blocks until every one of `pids` has exited or `deadline` passes: one `poll` on a pidfd
    /// each (there is no waitpid with a deadline), again after each exit, until none is left.
    static func waitForExits(_ pids: [pid_t], until deadline: ContinuousClock.Instant) {
        var open = pids.map { EventPoll.pidfd($0) }.filter { $0 >= 0 }  // -1: already gone
        defer { open.forEach { close($0) } }
        while !open.isEmpty && EventPoll.wait(open, until: deadline) {
            let exited = open.filter { fd in
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                return poll(&entry, 1, 0) > 0
            }
            exited.forEach { close($0) }
            open.removeAll { exited.contains($0) }
        }
    }
}

private func terminateChildrenAtExit() {
    TestCleanup.terminateAll()
}
