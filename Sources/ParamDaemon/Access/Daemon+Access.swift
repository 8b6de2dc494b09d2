import Foundation
import Logging
import ParamCore
import ParamSystem

// Access control beyond loopback (SPEC §16): the UDP allowlist, the tokens' files and the
// page's URLs, SIGHUP, `/status`. Control thread.

extension Daemon {
    /// The access state for `sockets` under `settings`: tokens read (or made) when HTTP serves
    /// beyond loopback without `--open`. Throws a token file that cannot be read or made.
    static func makeAccess(_ settings: Settings, sockets: [UDPSocket], log: Logger) throws -> AccessState {
        let bound = sockets.map(\.address)
        let beyond = bound.contains { !$0.isLoopback }
        let enforcing = beyond && !settings.open
        // HTTP serves only unicast addresses: behind a group alone, it stays on loopback.
        let httpBeyond = settings.httpPort != 0 && bound.contains { !$0.isLoopback && !$0.isMulticast }
        let tokens: AccessTokens? = enforcing && httpBeyond ? try readTokens(settings) : nil
        var state = AccessState(beyondLoopback: beyond, open: settings.open, allowlist: nil, gate: AccessGate(tokens: tokens, log: log))
        if enforcing {
            state.allowlist = allowlist(settings, bound: bound)
            log.info("UDP OSC accepted from loopback and \(state.allowlist!.description)\(settings.allow == nil ? " (the subnets of the bound addresses; --allow to change)" : "")")
        }
        if beyond && settings.open {
            log.warning("--open: access control is off; anyone who reaches \(bound.filter { !$0.isLoopback }.map(\.hostText).joined(separator: ", ")) can move the parameters")
        }
        return state
    }

    /// The tokens in their files, each made when missing.
    static func readTokens(_ settings: Settings) throws(TokenFileError) -> AccessTokens {
        let control = try TokenFile.loadOrCreate(settings.tokenFile)
        let observe = try settings.readTokenFile.map { (path) throws(TokenFileError) in try TokenFile.loadOrCreate(path) }
        return AccessTokens(control: control, observe: observe)
    }

    /// `allow` as given, or the default.
    static func allowlist(_ settings: Settings, bound: [ParamSystem.SocketAddress]) -> SourceAllowlist {
        SourceAllowlist(settings.allow ?? ListeningAddresses().defaultAllow(bound: bound, multicastInterface: settings.multicastInterface))
    }

    /// Whether a datagram from `sender` may be decoded; one that may not is counted and
    /// logged (rate-limited), and nothing else happens to it.
    func admitsDatagram(from sender: ParamSystem.SocketAddress) -> Bool {
        guard let allowlist = access.allowlist, !allowlist.admits(IPAddress(sender)) else { return true }
        access.refused += 1
        logRateLimited("UDP OSC from outside 'allow' dropped", ["from": "\(sender)"])
        return false
    }

    /// The page's URL for each non-loopback address, with its token: the only lines that ever
    /// carry a token (SPEC §16). Without tokens (`--open`) the URLs alone.
    func logPageURLs(httpPort: UInt16) {
        guard access.beyondLoopback, httpPort != 0 else { return }
        let addresses = ListeningAddresses().reachable(bound: loop.sockets.map(\.address))
        guard !addresses.isEmpty else { return }
        // Read at start a moment ago (and made then if missing): the gate holds them.
        let tokens = access.gate.isEnforcing ? try? Self.readTokens(settings) : nil
        for address in addresses {
            log.notice("control page: \(ListeningAddresses.pageURL(address, port: httpPort, token: tokens?.control))")
            if let observe = tokens?.observe {
                log.notice("control page, read only: \(ListeningAddresses.pageURL(address, port: httpPort, token: observe))")
            }
        }
    }

    /// SIGHUP: `allow` and the token files read again. A token file that cannot be read
    /// keeps the tokens in force.
    func reloadAccess(_ new: Settings) {
        guard access.isEnforcing else { return }
        let allowlist = Self.allowlist(new, bound: loop.sockets.map(\.address))
        if allowlist != access.allowlist {
            access.allowlist = allowlist
            log.notice("UDP OSC now accepted from loopback and \(allowlist.description)")
        }
        guard access.gate.isEnforcing else { return }
        do {
            access.gate.replace(try Self.readTokens(new))
            log.info("token files read again")
        } catch {
            log.error("SIGHUP: \(error); keeping the tokens in force")
        }
    }

    /// `/status`'s pairs of SPEC §16.
    var accessStatusPairs: [(String, OSCArgument)] {
        [("refused", .int32(Int32(clamping: access.refused))), ("open", .int32(access.open && access.beyondLoopback ? 1 : 0))]
    }

    /// An OSC packet over an observer's WebSocket: refused with `/error`, nothing decoded into
    /// commands, counted in `errors` as every refused message is.
    func refuseFromObserver(_ bytes: [UInt8], replyingTo channel: ReplyChannel) {
        let address = bytes.withUnsafeBytes { raw -> String in
            guard let packet = try? OSCPacket.decode(raw) else { return "#packet" }
            if case .message(let m) = packet { return m.address }
            return "#bundle"
        }
        loop.badInput.errors += 1
        channel.send(OSCMessage("/error", [.string(address), .string("read-only token: OSC is not accepted here")]))
        logRateLimited("OSC over an observer's WebSocket refused", ["address": "\(address)", "from": "\(channel)"])
    }
}
