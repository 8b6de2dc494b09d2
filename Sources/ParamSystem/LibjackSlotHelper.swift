import CJack
import Foundation
import Synchronization

/// Lets go a wake-up slot libjack kept in this process (`LibjackWakeSlots`), with helper clients
/// in a child process.
///
/// A stale slot's refnum is free, and JACK gives a new client the lowest free refnum. When a
/// client at that refnum leaves, this process's client (mapped by now) hears of it and lets the
/// slot go (`JackLibClient::ClientNotifyImp`). So a child process opens clients and closes them:
/// they take the free refnums from the lowest up, and their leaving lets the slot go. A child,
/// not this process, because closing a client of this process is what cannot be done safely
/// here: `jack_client_close` cancels libjack's notification thread at any instruction, and that
/// thread is busy just after an open; and a notification thread that ends by itself marks
/// libjack's server as gone for every client of the process. A child that hangs is killed.
///
/// The child is this executable, started with `environmentKey` set: each executable that may
/// use it calls `runIfAsked()` first thing in `main`, which also marks the helper available.
/// Without that call (the test runner's own clients) no helper runs and the slot stays kept.
public enum LibjackSlotHelper {
    static let environmentKey = "PARAMD_LIBJACK_SLOT_HELPER"
    /// How long a helper may take before it is killed; it takes milliseconds.
    static let helperTimeoutSeconds = 5.0
    private static let available = Atomic<Bool>(false)

    /// In a helper (`environmentKey` set: server, name and count, separated by newlines): opens
    /// that many clients, closes them, and exits. Otherwise marks the helper available.
    public static func runIfAsked() {
        guard let request = ProcessInfo.processInfo.environment[environmentKey] else {
            available.store(true, ordering: .relaxed)
            return
        }
        let fields = request.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, let count = Int(fields[2]), (1...16).contains(count) else { exit(2) }
        let server = fields[0].isEmpty ? nil : fields[0]
        var status = jack_status_t(rawValue: 0)
        // JACK renames a helper whose name is taken (name-01, ...).
        let clients = (0..<count).compactMap { _ in paramd_jack_client_open(fields[1], server, &status) }
        for client in clients { _ = jack_client_close(client) }
        exit(clients.count == count ? 0 : 1)
    }

    /// Runs a helper that opens and closes `count` clients named `name` on `server`; returns
    /// whether it ran and ended by itself in time.
    static func run(server: String?, name: String, count: Int) -> Bool {
        guard available.load(ordering: .relaxed) else { return false }
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
        do { try child.run() } catch { return false }
        if ended.wait(timeout: .now() + helperTimeoutSeconds) == .timedOut {
            kill(child.processIdentifier, SIGKILL)
            _ = ended.wait(timeout: .now() + 1)
            return false
        }
        return child.terminationReason == .exit
    }

    /// Whether helpers can run in this process (`runIfAsked` was called).
    public static var isAvailable: Bool { available.load(ordering: .relaxed) }
}
