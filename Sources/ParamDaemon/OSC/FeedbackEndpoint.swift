import ParamCore
import ParamSystem

/// Where a subscriber's feedback goes (SPEC §4.5, §9): a UDP address (`/subscribe`), or a
/// WebSocket connection (`LISTEN`), by its number. The same `Subscriptions` throttle both.
enum FeedbackEndpoint: Hashable, Sendable, CustomStringConvertible {
    case udp(SocketAddress)
    case stream(UInt64)

    var udp: SocketAddress? { if case .udp(let a) = self { a } else { nil } }

    var description: String {
        switch self {
        case .udp(let a): "\(a)"
        case .stream(let id): "websocket #\(id)"
        }
    }
}

/// A connection that takes encoded OSC messages (a WebSocket): `send` must not block and may
/// be called from any thread.
struct StreamSink: Sendable {
    let label: String
    let send: @Sendable ([UInt8]) -> Void
}
