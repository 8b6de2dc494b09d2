import CJack
import Foundation
import Synchronization

/// Lets go a wake-up slot libjack kept in this process (`LibjackWakeSlots`) with helper clients
/// in a child process. The stale slot's refnum is free, JACK gives a new client the lowest free
/// refnum, and when a client at that refnum leaves, this process's client (mapped by now) lets
/// the slot go (`JackLibClient::ClientNotifyImp`). A child, because closing a client here is
/// unsafe: `jack_client_close` cancels libjack's notification thread at any instruction (holding
/// libjack's lock, the close then waits forever), and a notification thread that ends by itself
/// marks the server gone for every client of the process. The child does not close its clients
/// either (the same cancel could hang it): it exits, and jackd removes them as it removes any
/// client that died, telling the others as for a client that closed.
///
/// The child is this executable, started with `environmentKey` set: each executable that may
/// use it calls `runIfAsked()` first thing in `main`, which also marks the helper available.
/// Without that call (the test runner's own clients) no helper runs and the slot stays kept.
public enum LibjackSlotHelper {
    static let environmentKey = "PARAMD_LIBJACK_SLOT_HELPER"
    /// Helper clients one child may open: JACK serves at most 64 clients (`CLIENT_NUM`).
    static let maxClients = 16
    /// How long all the rounds of helpers for one open may take, on the control thread, before
    /// the child at work is killed and the slot kept. Each takes milliseconds.
    static let totalTimeoutSeconds = 2.0
    private static let available = Atomic<Bool>(false)

    /// In a helper (`environmentKey` set: server, name and count, separated by newlines): opens
    /// that many clients and exits. Otherwise marks the helper available.
    public static func runIfAsked() {
        guard let request = ProcessInfo.processInfo.environment[environmentKey] else {
            available.store(true, ordering: .relaxed)
            return
        }
        // paramd blocks these for its signal descriptor; a helper ends on them like any program.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let fields = request.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, let count = Int(fields[2]), (1...maxClients).contains(count) else { _exit(2) }
        let server = fields[0].isEmpty ? nil : fields[0]
        var status = jack_status_t(rawValue: 0)
        // JACK renames a helper whose name is taken (name-01, ...).
        let opened = (0..<count).compactMap { _ in paramd_jack_client_open(fields[1], server, &status) }.count
        _exit(opened == count ? 0 : 1)
    }

    /// Runs a helper that opens `count` clients named `name` on `server` and exits, then waits
    /// until jackd has removed them (asking `client`'s server for their names), until `deadline`;
    /// a helper still running then is killed.
    static func run(client: OpaquePointer, server: String?, name: String, count: Int, deadline: DispatchTime) {
        guard available.load(ordering: .relaxed) else { return }
        let count = min(count, maxClients)
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = [server ?? "", name, String(count)].joined(separator: "\n")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = []
        child.environment = environment
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        child.terminationHandler = { _ in ended.signal() }
        do { try child.run() } catch { return }
        if ended.wait(timeout: deadline) == .timedOut {
            // Foundation reaps the child just before its handler runs: a tiny window where the
            // pid may be another's. A helper that hangs is what this is for.
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
            _ = ended.wait(timeout: .now() + 1)
        }
        // jackd's names for the helper's clients: `name`, then name-01, name-02, ... as taken.
        let names = [name] + (1...count + 1).map { name + "-" + ($0 < 10 ? "0\($0)" : "\($0)") }
        while DispatchTime.now() < deadline && names.contains(where: { isKnown($0, to: client) }) {
            usleep(removalLookMicroseconds)
        }
    }

    /// Between two asks whether jackd still knows a helper's clients.
    static let removalLookMicroseconds: UInt32 = 1000

    /// Whether `client`'s server has a client named `name` (a request to it).
    private static func isKnown(_ name: String, to client: OpaquePointer) -> Bool {
        guard let uuid = jack_get_uuid_for_client_name(client, name) else { return false }
        jack_free(uuid)
        return true
    }

    /// Whether helpers can run in this process (`runIfAsked` was called).
    static var isAvailable: Bool { available.load(ordering: .relaxed) }
}
