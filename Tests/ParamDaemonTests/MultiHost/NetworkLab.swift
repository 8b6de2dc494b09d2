import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Several "hosts" on one machine, for the multi-host tests (SPEC §12): a network namespace
/// per host, each with a veth `eth0` on one bridge in a "switch" namespace of its own, so
/// nothing touches the machine's own network. Host i (from 0) is 10.77.0.(i+1) and fd77::(i+1).
///
///     try await NetworkLab.with(hosts: 3) { lab in
///         let a = lab.hosts[0]                   // namespace, address, address6
///         try await lab.run(in: a, ["ip", "addr"])
///     }                                          // every namespace deleted, whatever happens
///
/// Routes, multicast snooping, namespace names, shared JACK state: Tests/README.md, "NetworkLab".
final class NetworkLab: Sendable {
    struct Host: Sendable {
        let namespace: String
        let address: String
        let address6: String
        let interface = "eth0"
    }

    let hosts: [Host]
    let switchNamespace: String
    private let deleted = Mutex(false)

    private static let counter = Atomic<Int>(0)

    /// Whether network namespaces can be made here (root or CAP_NET_ADMIN, iproute2 present):
    /// tried once with a probe namespace.
    static let isPossible: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip") else { return false }
        let probe = "pdt-\(getpid())-probe"
        guard runSync(["ip", "netns", "add", probe]) == 0 else { return false }
        _ = runSync(["ip", "netns", "del", probe])
        return true
    }()

    static let skipReason: Comment = "needs network namespaces: root or CAP_NET_ADMIN, and iproute2 (`ip netns add` failed or `ip` is missing)"

    private init(hosts: [Host], switchNamespace: String) {
        self.hosts = hosts
        self.switchNamespace = switchNamespace
    }

    deinit { if !deleted.withLock({ $0 }) { destroySync() } }

    /// Makes `count` hosts on one bridge.
    static func create(hosts count: Int) async throws -> NetworkLab {
        reapOrphans()
        let base = "pdt-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)"
        let switchNamespace = base + "-sw"
        let hosts = (0..<count).map { i in
            Host(namespace: "\(base)-h\(i + 1)", address: "10.77.0.\(i + 1)", address6: "fd77::\(i + 1)")
        }
        let lab = NetworkLab(hosts: hosts, switchNamespace: switchNamespace)
        var commands: [[String]] = [
            ["ip", "netns", "add", switchNamespace],
            ["ip", "-n", switchNamespace, "link", "set", "lo", "up"],
            ["ip", "-n", switchNamespace, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"],
            ["ip", "-n", switchNamespace, "link", "set", "br0", "up"],
        ]
        for (i, host) in hosts.enumerated() {
            let port = "p\(i + 1)"
            commands += [
                ["ip", "netns", "add", host.namespace],
                ["ip", "netns", "exec", host.namespace, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0",
                 "net.ipv6.conf.default.accept_dad=0"],
                ["ip", "-n", host.namespace, "link", "set", "lo", "up"],
                ["ip", "-n", switchNamespace, "link", "add", port, "type", "veth", "peer", "name", host.interface,
                 "netns", host.namespace],
                ["ip", "-n", switchNamespace, "link", "set", port, "master", "br0", "up"],
                ["ip", "-n", host.namespace, "addr", "add", host.address + "/24", "dev", host.interface],
                ["ip", "-n", host.namespace, "addr", "add", host.address6 + "/64", "dev", host.interface, "nodad"],
                ["ip", "-n", host.namespace, "link", "set", host.interface, "up"],
                ["ip", "-n", host.namespace, "route", "add", "224.0.0.0/4", "dev", host.interface],
            ]
        }
        for command in commands {
            let (status, output) = try await run(command)
            guard status == .exited(0) else {
                await lab.destroy()
                throw NetworkLabError(description: "\(command.joined(separator: " ")): \(status)\n\(output)")
            }
        }
        TestLog.write("network lab \(base): \(hosts.map { "\($0.namespace) \($0.address) \($0.address6)" }.joined(separator: ", ")) on a bridge in \(switchNamespace)")
        return lab
    }

    /// Runs `body` with a fresh lab and deletes it afterwards, whatever happens.
    static func with<R>(hosts count: Int, _ body: (NetworkLab) async throws -> R) async throws -> R {
        let lab = try await create(hosts: count)
        do {
            let result = try await body(lab)
            await lab.destroy()
            return result
        } catch {
            await lab.destroy()
            throw error
        }
    }

    /// Deletes every namespace (their veths and the bridge go with them). Idempotent.
    func destroy() async {
        guard deleted.withLock({ d in defer { d = true }; return !d }) else { return }
        for ns in hosts.map(\.namespace) + [switchNamespace] { _ = try? await Self.run(["ip", "netns", "del", ns]) }
    }

    private func destroySync() {
        deleted.withLock { $0 = true }
        for ns in hosts.map(\.namespace) + [switchNamespace] { _ = Self.runSync(["ip", "netns", "del", ns]) }
    }

    /// `ip netns exec NAMESPACE command…`, waited for: its status and output.
    @discardableResult
    func run(in host: Host, _ command: [String], timeout: Duration = .seconds(20)) async throws -> (ExitStatus, String) {
        try await Self.run(["ip", "netns", "exec", host.namespace] + command, timeout: timeout)
    }

    /// A long-running child in `host`'s namespace (`ip netns exec` execs the command, so the
    /// child's pid is the command's own and SIGTERM reaches it).
    func spawn(in host: Host, _ command: [String], environment: [String: String] = [:], label: String) throws -> ChildProcess {
        try ChildProcess("/usr/sbin/ip", ["netns", "exec", host.namespace] + command, environment: environment, label: label)
    }

    static func run(_ command: [String], timeout: Duration = .seconds(20)) async throws -> (ExitStatus, String) {
        let child = try ChildProcess(command[0] == "ip" ? "/usr/sbin/ip" : command[0], Array(command.dropFirst()),
                                     label: URL(fileURLWithPath: command[0]).lastPathComponent)
        let status: ExitStatus
        do {
            status = try await child.waitForExit(timeout: timeout)
        } catch {
            child.signal(SIGKILL)  // not left behind
            _ = try? await child.waitForExit(timeout: .seconds(5))
            throw error
        }
        return (status, child.standardOutput + child.standardError)
    }

    /// Runs a command synchronously (for `isPossible` and deinit); its exit status, or -1.
    @discardableResult
    static func runSync(_ command: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Deletes `pdt-<pid>-…` namespaces whose test process is gone.
    static func reapOrphans() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/run/netns") else { return }
        for name in names where name.hasPrefix("pdt-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 2, let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { runSync(["ip", "netns", "del", name]) }
        }
    }
}

struct NetworkLabError: Error, CustomStringConvertible {
    var description: String
}
