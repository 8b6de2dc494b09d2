import CJack
import Foundation

/// The futexes libjack holds to wake the clients after this one, checked for one of a client
/// that left.
///
/// JACK2 (1.9.21; its code is the same in 1.9.22 and on its main branch) keeps one slot per
/// client refnum in each process, a futex in `/dev/shm/jack_sem.<uid>_<server>_<client>`. When a
/// client leaves while this process is inside `jack_client_open`, libjack's notification thread
/// hears of it before the new client's control block is mapped, and skips letting the futex go
/// (`JackLibClient::ClientNotifyImp`, `kRemoveClient`, `if (GetClientControl() && ...)`). The
/// next client given that refnum finds the slot "already connected" (`JackLinuxFutex::Connect`),
/// and this process wakes the gone client's futex instead of it: when this one is the last
/// upstream of it to finish, it never runs until it leaves (jackd: "was not finished, state =
/// Triggered", each period; jackaudio/jack2#721, open since 2021). Helper clients let the slot
/// go (`LibjackSlotHelper`; docs/OPERATIONS.md, "A client that never runs").
public enum LibjackWakeSlots {
    /// Clients of `server` whose futex `mappings` hold, each with whether its file was unlinked
    /// (jackd unlinks a client's futex when the client leaves) and its inode (a client that
    /// comes and goes under one name has a new file each time). Nil when none is found for
    /// `ownName`, the client this process just opened: PipeWire's libjack, or another build
    /// of JACK, keeps no such slots.
    public static func held(in mappings: [ProcessMapping], server: String, ownName: String,
                            uid: UInt32, environment: [String: String]) -> [(client: String, unlinked: Bool, inode: UInt64)]? {
        // `JackLinuxFutex::BuildName`: a promiscuous server's futexes have no uid.
        let prefix = environment["JACK_PROMISCUOUS_SERVER"] == nil
            ? "/dev/shm/jack_sem.\(uid)_\(server)_" : "/dev/shm/jack_sem.\(server)_"
        let own = prefix + rewritten(ownName)
        guard mappings.contains(where: { $0.path == own && !$0.isDeleted }) else { return nil }
        return mappings.compactMap { mapping in
            guard mapping.path.hasPrefix(prefix), mapping.path != own else { return nil }
            return (String(mapping.path.dropFirst(prefix.count)), mapping.isDeleted, mapping.inode)
        }
    }

    /// The server libjack connects to for `server` (`JackTools::DefaultServerName`).
    public static func serverName(_ server: String?, environment: [String: String]) -> String {
        if let server, !server.isEmpty { return server }
        return environment["JACK_DEFAULT_SERVER"] ?? "default"
    }

    /// Requests to the server a stale slot must outlast when libjack's notification thread
    /// cannot be watched (`stale`).
    static let looks = 4

    /// Names of the clients whose futex `client`'s process still holds though they left (its
    /// file unlinked); empty when none, or when the slots cannot be seen. Control thread, right
    /// after `jack_client_open`.
    ///
    /// jackd serves requests one at a time, and when a client leaves it writes the leaving to
    /// the others, then unlinks its futex, before it serves the next: so a futex found unlinked
    /// after one request has had its leaving written to this process in full. Once libjack's
    /// notification thread is then seen idle (`LibjackNotificationThread`; the socket is read in
    /// order by that thread alone), that leaving was handled, and the same file (by inode: a
    /// client that comes and goes under one name has a new one each time) still mapped is a
    /// skipped one. Where the thread cannot be watched, a file counts only if it outlasts `looks`
    /// requests.
    static func stale(client: OpaquePointer, server: String?) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        let ownName = String(cString: jack_get_client_name(client))
        let serverName = serverName(server, environment: environment)
        func unlinkedNow() -> Set<StaleFile> {
            let held = held(in: ProcessMappings.current(), server: serverName, ownName: ownName, uid: geteuid(), environment: environment)
            return Set((held ?? []).filter { $0.unlinked }.map { StaleFile(client: $0.client, inode: $0.inode) })
        }
        func unlinkedAfterARequest() -> Set<StaleFile> {
            if let ownUUID = jack_get_uuid_for_client_name(client, ownName) { jack_free(ownUUID) }
            return unlinkedNow()
        }
        // No slot of another client (or none to see, as on PipeWire): nothing to ask the server.
        guard let first = held(in: ProcessMappings.current(), server: serverName, ownName: ownName, uid: geteuid(),
                               environment: environment), !first.isEmpty else { return [] }
        var stale = unlinkedAfterARequest()
        if !stale.isEmpty && LibjackNotificationThread.waitUntilIdle(clientName: ownName, environment: environment) {
            stale.formIntersection(unlinkedNow())
            return Set(stale.map(\.client)).sorted()
        }
        for _ in 1..<looks where !stale.isEmpty {
            stale.formIntersection(unlinkedAfterARequest())
        }
        return Set(stale.map(\.client)).sorted()
    }

    /// A futex file of a client that left, as mapped.
    private struct StaleFile: Hashable {
        var client: String
        var inode: UInt64
    }

    /// `JackTools::RewriteName`: a slash or backslash in a client's name is `_` in its file's.
    static func rewritten(_ name: String) -> String {
        String(name.map { $0 == "/" || $0 == "\\" ? "_" : $0 })
    }
}
