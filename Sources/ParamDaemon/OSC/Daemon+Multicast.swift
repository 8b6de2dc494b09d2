import Foundation
import Logging
import ParamSystem

// Multicast control (SPEC §12): which interface the groups in `--bind` are joined on, and
// leaving them at exit. The sockets themselves are in ParamSystem (UDPSocket.swift and
// Multicast.swift). Control thread.

extension Daemon {
    /// The interface `--multicast-interface` (or the config file's `multicast-interface`)
    /// names, when `--bind` holds a multicast group. Throws a clear error naming what is wrong:
    /// a group without an interface, or an interface the host does not have.
    static func multicastInterface(_ settings: Settings, log: Logger) throws(SocketError) -> MulticastInterface? {
        let groups = settings.bind.filter { SocketAddress(numeric: $0, port: 0)?.isMulticast == true }
        guard let name = settings.multicastInterface else {
            if let group = groups.first {
                throw SocketError(operation: "bind \(group)", code: EINVAL,
                               detail: "a multicast group needs --multicast-interface (or multicast-interface in the config file) naming the network interface to join it on")
            }
            return nil
        }
        guard let interface = MulticastInterface(named: name) else {
            throw SocketError(operation: "multicast-interface '\(name)'", code: ENODEV,
                           detail: "no such network interface on this host (`ip link` lists them)")
        }
        if groups.isEmpty {
            log.notice("multicast-interface '\(name)' is set but --bind names no multicast group; it is not used")
        }
        return interface
    }

    /// Leaves every multicast group joined (at exit).
    func leaveMulticastGroups() {
        for socket in loop.sockets where socket.membership != nil {
            let group = socket.membership!
            socket.leaveGroup()
            log.info("left multicast group \(group.group.hostText) on \(group.interface.name)")
        }
    }
}
