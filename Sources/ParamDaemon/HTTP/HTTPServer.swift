import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ParamCore
import ParamSystem

/// HTTP and WebSocket on `--http-port` (SPEC §9): OSCQuery, the control page at `/ui`, and the
/// WebSocket that LISTENs and carries OSC. SwiftNIO on one event-loop thread of its own
/// (`paramd-http`), which sleeps in `epoll_wait` until a connection has something to say.
/// It never touches the daemon's state: what needs it (the namespace with its values, LISTEN,
/// OSC packets) goes to the control thread through its inbox, and answers come back on the
/// connection's event loop (NIO's `writeAndFlush` may be called from any thread).
final class HTTPServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channels: [Channel]
    /// Where the server listens, as `127.0.0.1:9001 and [::1]:9001`.
    let listening: String

    /// Binds every address (the OSC sockets' own) to `port`, or throws: a port already taken
    /// is a start-up error, as for OSC.
    init(addresses: [ParamSystem.SocketAddress], port: UInt16, allowHosts: [String], gate: AccessGate, inbox: Inbox, log: Logger) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try group.next().submit { nameThisThread("paramd-http") }.wait()
        let policy = HTTPAccessPolicy(addresses: addresses.map(\.hostText), names: allowHosts + Self.ownNames(addresses))
        let context = HTTPContext(policy: policy, gate: gate, inbox: inbox, log: log)
        var channels: [Channel] = []
        do {
            for address in addresses {
                let bootstrap = ServerBootstrap(group: group)
                    .serverChannelOption(.backlog, value: 64)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture { try Self.configure(channel, context) }
                    }
                channels.append(try bootstrap.bind(host: address.hostText, port: Int(port)).wait())
            }
        } catch {
            for c in channels { try? c.close().wait() }
            try? group.syncShutdownGracefully()
            throw HTTPServerError(port: port, underlying: error)
        }
        self.group = group
        self.channels = channels
        listening = addresses.map { $0.with(port: port).description }.joined(separator: " and ")
    }

    /// Closes the listening sockets and the connections, and ends the thread.
    func stop() {
        for c in channels { try? c.close().wait() }
        try? group.syncShutdownGracefully()
    }

    /// The machine's own names, allowed in `Host` when paramd listens beyond loopback: what
    /// zeroconf announces (`NAME.local`) and the host name itself.
    static func ownNames(_ addresses: [ParamSystem.SocketAddress]) -> [String] {
        guard addresses.contains(where: { !$0.isLoopback }) else { return [] }
        let name = ProcessInfo.processInfo.hostName.lowercased()
        guard !name.isEmpty, name != "localhost" else { return [] }
        let short = name.split(separator: ".").first.map(String.init) ?? name
        return Array(Set([name, short, short + ".local"]))
    }

    /// One connection's pipeline: HTTP/1.1 with the WebSocket upgrade, then our handler.
    private static func configure(_ channel: Channel, _ context: HTTPContext) throws {
        let http = HTTPHandler(context)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: HTTPContext.maximumMessage,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                // Refused here, the request goes on to HTTPHandler, which answers 421, 403, 401
                // or 429 (and counts a wrong token once, there).
                guard context.refusal(of: head) == nil,
                      case .allowed(_, let cookie) = context.access(head, channel, recording: false) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                if let cookie { headers.add(name: "Set-Cookie", value: cookie) }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256,
                        maxAccumulatedFrameSize: HTTPContext.maximumMessage))
                    guard case .allowed(let role, _) = context.access(head, channel, recording: false) else {
                        throw HTTPAccessChanged()
                    }
                    try sync.addHandler(WebSocketHandler(context, channel: channel, head: head, role: role))
                }
            })
        let sync = channel.pipeline.syncOperations
        try sync.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { ctx in
                // The connection speaks WebSocket now: HTTP requests no longer come.
                ctx.pipeline.syncOperations.removeHandler(name: "paramd-http", promise: nil)
            }))
        try sync.addHandler(http, name: "paramd-http")
    }
}

struct HTTPServerError: Error, CustomStringConvertible {
    let port: UInt16
    let underlying: any Error
    var description: String {
        let text = "\(underlying)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
            return "HTTP port \(port) is already in use (--http-port; 0 turns HTTP off)"
        }
        return "cannot listen for HTTP on port \(port): \(text)"
    }
}

/// The tokens changed between the upgrade's check and its pipeline (a SIGHUP): the connection
/// closes rather than going on with a role no longer given.
struct HTTPAccessChanged: Error {}

/// What every connection shares: who may talk, the way to the control thread, the log.
struct HTTPContext: Sendable {
    /// The largest WebSocket message (an OSC packet): a UDP datagram's most.
    static let maximumMessage = 65_536

    let policy: HTTPAccessPolicy
    /// Tokens beyond loopback (SPEC §16).
    let gate: AccessGate
    let inbox: Inbox
    let log: Logger

    /// Why a request is refused before anything else looks at it, if it is: 421 for a `Host`
    /// that is not paramd's, 403 for a WebSocket upgrade from another origin.
    func refusal(of head: HTTPRequestHead) -> HTTPResponseStatus? {
        let host = head.headers.first(name: "host")
        guard head.headers[canonicalForm: "host"].count <= 1, policy.allowsHost(host) else { return .misdirectedRequest }
        if Self.isWebSocketUpgrade(head), !policy.allowsOrigin(head.headers.first(name: "origin"), host: host) {
            return .forbidden
        }
        return nil
    }

    /// Whether the token the request carries lets it in, on the connection's own addresses.
    func access(_ head: HTTPRequestHead, _ channel: Channel, recording: Bool) -> AccessGate.Decision {
        let credentials = TokenCredentials(uri: head.uri, authorization: head.headers["authorization"],
                                           cookies: head.headers["cookie"])
        return gate.decide(local: channel.localAddress?.ipAddress.flatMap { IPAddress($0) },
                           remote: channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) },
                           credentials: credentials, now: monotonicSeconds(), recording: recording)
    }

    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
    }
}
