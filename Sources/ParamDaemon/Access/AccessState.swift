import Foundation
import ParamCore
import ParamSystem

/// Access control as the control thread holds it (SPEC §16): whether it is on, who may send
/// UDP OSC, what was refused, and the gate HTTP asks. Off on loopback (nothing else can reach
/// paramd there) and with `--open`.
struct AccessState {
    /// Whether paramd listens on any address but loopback.
    let beyondLoopback: Bool
    /// `--open`: access control off on purpose, though beyond loopback.
    let open: Bool
    /// Who may send UDP OSC; nil when everyone may (loopback only, or `--open`).
    var allowlist: SourceAllowlist?
    /// Datagrams dropped before decoding because their source is outside `allowlist`.
    var refused = 0
    /// Shared with HTTP: the tokens in force and the guesses counted.
    let gate: AccessGate

    var isEnforcing: Bool { beyondLoopback && !open }
}

extension IPAddress {
    /// The numeric address of a socket address (the port dropped).
    init(_ address: ParamSystem.SocketAddress) {
        switch address.host {
        case .v4(let value): self.init(ipv4: UInt32(bigEndian: value))
        case .v6(let hi, let lo, _): self.init(high: UInt64(bigEndian: hi), low: UInt64(bigEndian: lo))
        }
    }

    /// Unspecified: `0.0.0.0` or `::`, a socket bound to every address of the machine.
    var isWildcard: Bool { (isIPv4 && low & 0xFFFF_FFFF == 0) || (high == 0 && low == 0) }

    /// fe80::/10: reached only on one link, never put in a URL.
    var isLinkLocal: Bool { high >> 54 == 0x3FA }
}

/// The addresses a listening set stands for, read from the machine's interfaces: what the
/// default `allow` and the printed URLs are made of.
struct ListeningAddresses {
    let interfaces: [InterfaceAddress]

    init(interfaces: [InterfaceAddress] = InterfaceAddress.all()) {
        self.interfaces = interfaces
    }

    /// SPEC §16's default `allow`: the subnet of each unicast address bound (every interface's
    /// for a wildcard of its family, both families for `::`), and for a multicast group the
    /// subnets of `multicastInterface`.
    func defaultAllow(bound: [ParamSystem.SocketAddress], multicastInterface: String?) -> [CIDRBlock] {
        var blocks: [CIDRBlock] = []
        for socket in bound where !socket.isLoopback {
            let address = IPAddress(socket)
            let matching: [InterfaceAddress]
            if socket.isMulticast {
                matching = interfaces.filter { $0.interface == multicastInterface }
            } else if address.isWildcard {
                matching = interfaces.filter { !address.isIPv4 || IPAddress($0.address).isIPv4 }
            } else {
                matching = interfaces.filter { IPAddress($0.address) == address }
                if matching.isEmpty { blocks.append(CIDRBlock(address, prefixLength: 128)) }
            }
            for entry in matching where !entry.address.isLoopback {
                let own = IPAddress(entry.address)
                blocks.append(CIDRBlock(own, prefixLength: entry.prefixLength + (own.isIPv4 ? 96 : 0)))
            }
        }
        var seen = Set<CIDRBlock>()
        return blocks.filter { seen.insert($0).inserted }
    }

    /// The non-loopback addresses a phone can reach the HTTP server on: each unicast address
    /// bound, or for a wildcard every such address of the machine (link-local ones left out).
    func reachable(bound: [ParamSystem.SocketAddress]) -> [IPAddress] {
        var found: [IPAddress] = []
        for socket in bound where !socket.isLoopback && !socket.isMulticast {
            let address = IPAddress(socket)
            if address.isWildcard {
                found += interfaces.map { IPAddress($0.address) }
                    .filter { !$0.isLoopback && !$0.isLinkLocal && (!address.isIPv4 || $0.isIPv4) }
            } else {
                found.append(address)
            }
        }
        var seen = Set<IPAddress>()
        return found.filter { seen.insert($0).inserted }
    }

    /// `http://10.77.0.1:9001/ui?token=…`, `http://[fd77::1]:9001/ui?token=…`.
    static func pageURL(_ address: IPAddress, port: UInt16, token: [UInt8]?) -> String {
        let host = address.isIPv4 ? "\(address)" : "[\(address)]"
        return "http://\(host):\(port)/ui" + (token.map { "?token=" + String(decoding: $0, as: UTF8.self) } ?? "")
    }
}
