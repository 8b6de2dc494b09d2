import Foundation
import ParamCore
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

// Values sent on to other programs (SPEC §8.2). Publisher thread.

extension Publisher {
    /// Sends values on (SPEC §8.2), each from a socket connected to its destination. A
    /// destination that refuses packets (or cannot be reached) is logged, at most three lines
    /// in ten seconds, and tried again with the next value: nothing waits for it.
    func forward(_ due: [Forwarding.Due], now: Double) {
        for d in due {
            let route = forwarding.routes[d.route]
            if forwardSockets[d.route] == nil {
                guard let address = SocketAddress(numeric: route.send.host, port: route.send.port) else { continue }
                forwardSockets[d.route] = try? UDPSocket(connectingTo: address)
            }
            let error = forwardSockets[d.route].map { $0.send(d.message.encoded()) } ?? ENETUNREACH
            if error != 0 && error != EAGAIN && error != ENOBUFS {
                if let suppressed = forwardErrors.admit(now: now) {
                    log.warning("send: \(route.send.url) does not take packets (\(String(cString: strerror(error)))); trying again with the next value",
                                metadata: suppressed > 0 ? ["suppressed": "\(suppressed)"] : [:])
                }
                if error == ECONNREFUSED {
                    // The refusal is reported once per ICMP message; the socket stays usable.
                    continue
                }
                forwardSockets[d.route] = nil
            }
        }
    }
}
