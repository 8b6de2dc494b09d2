import Foundation
import Logging
import ParamCore
import ParamSystem
#if canImport(Glibc)
import Glibc
#endif

/// Values sent on to other programs (SPEC §8.2): the routes, one connected socket per route
/// (made when first needed), and the log's limit on refusals. Publisher thread only (and the
/// control thread while the publisher is stopped).
struct ForwardSender {
    var forwarding: Forwarding
    private var sockets: [UDPSocket?]
    private var errors = RateLimiter(burst: 3, intervalSeconds: 10)

    init(registry: ParameterRegistry) {
        forwarding = Forwarding(registry: registry)
        sockets = Array(repeating: nil, count: forwarding.routes.count)
    }

    /// Sends values on, each from a socket connected to its destination. A destination that
    /// refuses packets (or cannot be reached) is logged, at most three lines in ten seconds, and
    /// tried again with the next value: nothing waits for it.
    mutating func send(_ due: [Forwarding.Due], now: Double, log: Logger) {
        for d in due {
            let route = forwarding.routes[d.route]
            if sockets[d.route] == nil {
                guard let address = SocketAddress(numeric: route.send.host, port: route.send.port) else { continue }
                sockets[d.route] = try? UDPSocket(connectingTo: address)
            }
            let error = sockets[d.route].map { $0.send(d.message.encoded()) } ?? ENETUNREACH
            if error != 0 && error != EAGAIN && error != ENOBUFS {
                if let suppressed = errors.admit(now: now) {
                    log.warning("send: \(route.send.url) does not take packets (\(String(cString: strerror(error)))); trying again with the next value",
                                metadata: suppressed > 0 ? ["suppressed": "\(suppressed)"] : [:])
                }
                if error == ECONNREFUSED {
                    // The refusal is reported once per ICMP message; the socket stays usable.
                    continue
                }
                sockets[d.route] = nil
            }
        }
    }
}
