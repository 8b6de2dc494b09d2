import ParamCore
import ParamSystem

/// Where the replies to one request go: back to a UDP sender from the socket it came in on,
/// or through another transport (a WebSocket, a session manager's connection) that hands
/// the encoded message on. Every reply of the control thread goes through one of these.
enum ReplyChannel: CustomStringConvertible, @unchecked Sendable {
    /// A UDP datagram's sender, answered from the listening socket it arrived on.
    case udp(UDPSocket, SocketAddress)
    /// Another transport: `send` takes one encoded OSC message. Called on the control thread;
    /// it must not block.
    case stream(label: String, send: @Sendable ([UInt8]) -> Void)

    /// Control thread, and the publisher for `/scene/done` (a UDP send or a WebSocket write,
    /// both safe from any thread).
    func send(_ message: OSCMessage) {
        switch self {
        case .udp(let socket, let address): socket.send(message.encoded(), to: address)
        case .stream(_, let send): send(message.encoded())
        }
    }

    /// The UDP sender, where feedback (`/subscribe`) may go; nil for other transports.
    var udpSender: SocketAddress? {
        if case .udp(_, let address) = self { address } else { nil }
    }

    var description: String {
        switch self {
        case .udp(_, let address): "\(address)"
        case .stream(let label, _): label
        }
    }
}
