import CJack
import Foundation

/// An open JACK client (`jack_client_t *`): opening, ports, activation and closing, the calls
/// paramd, paramd-jacktool and the tests share. Callbacks stay with each user, who sets them
/// on `pointer` with C-convention functions. Closing is the owner's explicit choice (after a
/// server loss paramd first waits for libjack's threads), never a deinit. Control thread.
public final class JackClientHandle {
    /// The `jack_client_t *`, for the calls each user makes itself (callbacks, metadata).
    public let pointer: OpaquePointer
    public private(set) var isClosed = false

    /// Clients that left while this one opened, whose wake-up slot libjack kept; let go by
    /// helper clients (`LibjackSlotHelper`). For the log.
    public let staleSlotsLetGo: [String]
    /// Such clients still held after `staleSlotRounds`: another client took the refnum first,
    /// more than two lower refnums were free, a helper could not run or ran out of time, or this
    /// executable runs no helper. A client holding one of their refnums downstream of this one
    /// does not run until it leaves.
    public let staleSlotsKept: [String]
    /// Rounds of helpers tried before a stale slot is kept: round r opens r clients at once,
    /// for free refnums below the stale one.
    static let staleSlotRounds = 3
    /// Bytes of this client's name its helpers' names keep: with `-slot`, the process id and
    /// JACK's renaming (-01), well within its 63-byte client names.
    static let helperNamePrefixBytes = 24

    /// `jack_client_open` with `JackNoStartServer` (and `JackServerName` when `server` is
    /// given; nil is the default server, or `$JACK_DEFAULT_SERVER`), through the CJack shim,
    /// since Swift cannot call the variadic function. JACK may rename the client (`name`).
    /// Then, before anything is registered, lets go any slot libjack kept for a client that left
    /// as it opened (`LibjackWakeSlots`, `LibjackSlotHelper`).
    public init(name: String, server: String?) throws(JackError) {
        pointer = try Self.open(name: name, server: server)
        let stale = LibjackWakeSlots.stale(client: pointer, server: server)
        var kept = stale
        if !stale.isEmpty && LibjackSlotHelper.isAvailable {
            let helperName = Self.helperName(own: String(cString: jack_get_client_name(pointer)))
            let deadline = DispatchTime.now() + LibjackSlotHelper.totalTimeoutSeconds
            for round in 1...Self.staleSlotRounds where !kept.isEmpty && DispatchTime.now() < deadline {
                LibjackSlotHelper.run(client: pointer, server: server, name: helperName, count: round, deadline: deadline)
                kept = LibjackWakeSlots.stale(client: pointer, server: server)
            }
        }
        staleSlotsLetGo = stale.filter { !kept.contains($0) }
        staleSlotsKept = kept
    }

    /// `<own name, cut to helperNamePrefixBytes>-slot<pid>`: the process id keeps two programs'
    /// helpers apart when they open at once (both may look for the other's names).
    static func helperName(own: String) -> String {
        var prefix = Substring(own)
        while prefix.utf8.count > helperNamePrefixBytes { prefix = prefix.dropLast() }
        return "\(prefix)-slot\(getpid())"
    }

    private static func open(name: String, server: String?) throws(JackError) -> OpaquePointer {
        var status = jack_status_t(rawValue: 0)
        guard let client = paramd_jack_client_open(name, server, &status) else {
            let unreachable = status.rawValue & JackServerFailed.rawValue != 0
            throw JackError(operation: "client open\(server.map { " on server '\($0)'" } ?? "")",
                            code: JackError.Code(rawValue: Int32(bitPattern: status.rawValue)),
                            reason: unreachable ? "cannot reach the server" : nil)
        }
        return client
    }

    /// The name JACK gave this client, which may differ from the one asked for
    /// (`jack_get_client_name`).
    public var name: String { String(cString: jack_get_client_name(pointer)) }
    /// Frames per second (`jack_get_sample_rate`).
    public var sampleRate: Int { Int(jack_get_sample_rate(pointer)) }
    /// Frames per period (`jack_get_buffer_size`).
    public var bufferSize: Int { Int(jack_get_buffer_size(pointer)) }

    /// `jack_port_register` of `shortName` (the part after `client:`), of `type`, with
    /// `flags` (`.input` or `.output`, at least).
    public func registerPort(_ shortName: String, type: JackPortType, flags: JackPortFlagSet) throws(JackError) -> JackPort {
        guard let port = jack_port_register(pointer, shortName, type.rawValue, flags.rawValue, 0) else {
            throw JackError(operation: "port register \(shortName)", code: .noResult)
        }
        return JackPort(port)
    }

    /// `jack_port_unregister`: the port goes, with its connections. A failure leaves it there,
    /// which its owner cannot mend; ignored.
    public func unregister(_ port: JackPort) {
        _ = jack_port_unregister(pointer, port.pointer)
    }

    /// `jack_activate`: the callbacks start; ports can be connected from now on.
    public func activate() throws(JackError) {
        let rc = jack_activate(pointer)
        guard rc == 0 else { throw JackError(operation: "activate", code: JackError.Code(rawValue: rc)) }
    }

    /// `jack_deactivate`: when it returns, the process callback is not running and will not
    /// run again. Its code is ignored: callers deactivate on the way out, and close next.
    public func deactivate() {
        if !isClosed { _ = jack_deactivate(pointer) }
    }

    /// `jack_client_close` (deactivating first if active); no call may follow. Closing twice
    /// is allowed and does nothing.
    public func close() {
        if isClosed { return }
        isClosed = true
        _ = jack_client_close(pointer)
    }
}
