import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ParamCore
import Synchronization

/// One WebSocket connection (SPEC §9). Text frames are OSCQuery commands:
/// `{"COMMAND":"LISTEN","DATA":"/volume"}` and `IGNORE`. Binary frames are OSC packets,
/// handled by the control thread exactly as UDP datagrams (bundles and time tags included),
/// with replies back on this socket. Feedback (LISTEN) and replies go out as binary frames,
/// one OSC message each. Closing the socket drops its listens. Event-loop thread.
final class WebSocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private static let nextID = Atomic<UInt64>(1)

    private let context: HTTPContext
    /// An observer's (read token, SPEC §16) OSC packets are refused with `/error`.
    private let role: AccessRole
    let id: UInt64
    let sink: StreamSink
    private let open: Open
    private var closing = false
    private let flow = Flow()
    static let pauseAt = 256
    static let resumeAt = 32

    /// OSC packets of this connection waiting in the control thread's inbox, and whether
    /// reading is paused for them.
    final class Flow: Sendable {
        let waiting = Atomic<Int>(0)
        let paused = Atomic<Bool>(false)
    }

    /// Whether the socket is still open, for the control thread (a LISTEN that waited in the
    /// inbox behind the socket's end must not subscribe).
    final class Open: Sendable {
        let flag = Atomic<Bool>(true)
    }

    init(_ context: HTTPContext, channel: Channel, head: HTTPRequestHead, role: AccessRole) {
        self.context = context
        self.role = role
        id = Self.nextID.add(1, ordering: .relaxed).oldValue
        let open = Open()
        self.open = open
        let peer = channel.remoteAddress.map { "\($0)" } ?? "?"
        let label = "websocket #\(id) \(peer)"
        // Any thread: one binary frame per OSC message, written on the connection's event
        // loop. A client that does not read fills the channel's buffer; then messages are
        // dropped rather than queued without end (the next value replaces them anyway).
        sink = StreamSink(label: label) { bytes in
            guard open.flag.load(ordering: .relaxed), channel.isWritable else { return }
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .binary, data: buffer), promise: nil)
        }
        context.log.debug("WebSocket open", metadata: ["connection": "\(label)", "uri": "\(TokenCredentials.removingToken(from: head.uri).prefix(200))",
                                                     "role": "\(role)"])
    }

    func channelRead(context ctx: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            command(data.readString(length: data.readableBytes) ?? "")
        case .binary:
            var data = frame.unmaskedData
            let bytes = data.readBytes(length: data.readableBytes) ?? []
            let reply = ReplyChannel.stream(label: sink.label, send: sink.send)
            if role == .observe {
                context.inbox.post(.run { daemon in daemon.refuseFromObserver(bytes, replyingTo: reply) })
                return
            }
            // Handled by the control thread as a UDP datagram is (Daemon+Packets.swift). A client
            // that sends faster than that is held back by TCP: past `Self.pauseAt` packets
            // waiting, this connection stops reading until the control thread has caught up.
            let flow = self.flow, channel = ctx.channel
            let waiting = flow.waiting.add(1, ordering: .sequentiallyConsistent).newValue
            context.inbox.post(.run { daemon in
                bytes.withUnsafeBytes { daemon.handlePacket($0, replyingTo: reply) }
                let left = flow.waiting.subtract(1, ordering: .sequentiallyConsistent).newValue
                if left <= Self.resumeAt, flow.paused.exchange(false, ordering: .sequentiallyConsistent) {
                    channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
                }
            })
            if waiting >= Self.pauseAt, !flow.paused.exchange(true, ordering: .sequentiallyConsistent) {
                ctx.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
                context.log.debug("WebSocket: \(waiting) packets wait for the control thread; reading paused",
                                  metadata: ["connection": "\(sink.label)"])
                // The control thread may have drained everything before `paused` was set: then
                // no packet is left to resume reading, so look again (Dekker: store, then load).
                if flow.waiting.load(ordering: .sequentiallyConsistent) <= Self.resumeAt,
                   flow.paused.exchange(false, ordering: .sequentiallyConsistent) {
                    ctx.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
                }
            }
        case .ping:
            var data = frame.unmaskedData
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: data.readSlice(length: data.readableBytes) ?? ctx.channel.allocator.buffer(capacity: 0))
            ctx.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            close(ctx, code: .normalClosure)
        default:
            break  // pongs; continuations are joined by the aggregator
        }
    }

    func channelInactive(context ctx: ChannelHandlerContext) {
        open.flag.store(false, ordering: .relaxed)
        let id = self.id
        context.inbox.post(.run { daemon in daemon.streamClosed(id: id) })
        context.log.debug("WebSocket closed", metadata: ["connection": "\(sink.label)"])
        ctx.fireChannelInactive()
    }

    func errorCaught(context ctx: ChannelHandlerContext, error: Error) {
        context.log.debug("WebSocket error; closing", metadata: ["connection": "\(sink.label)", "error": "\(error)"])
        close(ctx, code: .protocolError)
    }

    /// `{"COMMAND":"LISTEN"|"IGNORE","DATA":"/path"}`; anything else is logged and ignored.
    private func command(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let command = object["COMMAND"] as? String, let path = object["DATA"] as? String else {
            context.log.debug("WebSocket: not an OSCQuery command; ignored", metadata: ["connection": "\(sink.label)", "text": "\(text.prefix(200))"])
            return
        }
        let id = self.id, sink = self.sink, open = self.open
        switch command {
        case "LISTEN":
            context.inbox.post(.run { daemon in
                daemon.listen(sink, id: id, path: path, isOpen: { open.flag.load(ordering: .relaxed) })
            })
        case "IGNORE":
            context.inbox.post(.run { daemon in daemon.ignore(id: id, path: path) })
        default:
            context.log.debug("WebSocket: unknown command; ignored", metadata: ["connection": "\(sink.label)", "command": "\(command.prefix(40))"])
        }
    }

    private func close(_ ctx: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        open.flag.store(false, ordering: .relaxed)
        var data = ctx.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        let channel = ctx.channel
        ctx.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
    }
}
