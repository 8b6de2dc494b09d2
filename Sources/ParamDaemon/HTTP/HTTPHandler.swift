import Foundation
import NIOCore
import NIOHTTP1
import ParamCore

/// One HTTP connection's requests (SPEC §9): `GET`/`HEAD` only (nothing over HTTP changes
/// anything; other methods 405), `Host` checked (421), a refused WebSocket upgrade answered
/// (403), `/ui` from the binary, everything else OSCQuery, answered by the control thread.
/// Event-loop thread.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let context: HTTPContext
    private var head: HTTPRequestHead?

    init(_ context: HTTPContext) {
        self.context = context
    }

    func channelRead(context ctx: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // no request here has a body worth reading
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, ctx)
        }
    }

    private func respond(to head: HTTPRequestHead, _ ctx: ChannelHandlerContext) {
        if let refusal = context.refusal(of: head) {
            let why = refusal == .forbidden ? "a WebSocket from another origin" : "a Host that is not paramd's"
            context.log.notice("HTTP request refused: \(why)", metadata: [
                "status": "\(refusal.code)", "host": "\(head.headers.first(name: "host") ?? "-")",
                "origin": "\(head.headers.first(name: "origin") ?? "-")", "uri": "\(TokenCredentials.removingToken(from: head.uri).prefix(200))"])
            return send(refusal, text: refusal == .forbidden ? "Forbidden: cross-origin WebSocket\n" : "Misdirected Request: unknown Host\n",
                        to: head, ctx)
        }
        var cookie: String? = nil
        switch context.access(head, ctx.channel, recording: true) {
        case .tooManyAttempts:
            var headers = HTTPHeaders()
            headers.add(name: "Retry-After", value: "60")
            return send(.tooManyRequests, text: "Too Many Requests: too many wrong tokens from this address; try again in a minute\n",
                        headers: headers, to: head, ctx)
        case .unauthorized:
            return sendTokenForm(to: head, ctx)
        case .allowed(_, let setCookie):
            cookie = setCookie
        }
        guard head.method == .GET || head.method == .HEAD else {
            var headers = HTTPHeaders()
            headers.add(name: "Allow", value: "GET, HEAD")
            return send(.methodNotAllowed, text: "Method Not Allowed: nothing changes over HTTP; use the WebSocket or OSC\n",
                        headers: headers, to: head, ctx)
        }
        if HTTPContext.isWebSocketUpgrade(head) {
            // The upgrader declined for another reason (a missing key, a wrong version).
            return send(.badRequest, text: "Bad Request: not a valid WebSocket upgrade\n", to: head, ctx)
        }
        // The token has done its work: nothing below sees it. A browser that brought it on the
        // URL goes to the same URL without it, the cookie now carrying it.
        let uri = TokenCredentials.removingToken(from: head.uri)
        if let cookie, head.method == .GET, head.headers["accept"].contains(where: { $0.contains("text/html") }) {
            var headers = HTTPHeaders()
            headers.add(name: "Set-Cookie", value: cookie)
            headers.add(name: "Location", value: uri)
            return send(.seeOther, text: "See Other: \(uri)\n", headers: headers, to: head, ctx)
        }
        var extra = HTTPHeaders()
        if let cookie { extra.add(name: "Set-Cookie", value: cookie) }
        let (path, query) = Self.split(uri)
        if path == "/ui" || path.hasPrefix("/ui/") {
            guard let file = UIFiles.file(at: path) else { return send(.notFound, text: "Not Found\n", to: head, ctx) }
            var headers = extra
            headers.add(name: "Content-Type", value: file.contentType)
            headers.add(name: "Cache-Control", value: "no-cache")
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
            return send(.ok, body: file.bytes, headers: headers, to: head, ctx)
        }
        // OSCQuery: the control thread owns the namespace and its values.
        let promise = ctx.eventLoop.makePromise(of: OSCQueryNamespace.Response.self)
        context.inbox.post(.run { daemon in promise.succeed(daemon.oscQueryResponse(path: path, query: query)) })
        promise.futureResult.assumeIsolated().whenSuccess { [self] response in
            let status = HTTPResponseStatus(statusCode: response.status)
            var headers = extra
            if response.status == 200 { headers.add(name: "Content-Type", value: "application/json") }
            headers.add(name: "Cache-Control", value: "no-cache")
            let body = response.status == 404 ? Array("Not Found\n".utf8) : Array(response.body.utf8)
            if response.status == 404 { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
            send(status, body: body, headers: headers, to: head, ctx)
        }
    }

    /// 401 with a small page that asks for the token and sends it back as `?token=` on the
    /// same path (SPEC §16).
    private func sendTokenForm(to head: HTTPRequestHead, _ ctx: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "WWW-Authenticate", value: "Bearer realm=\"paramd\"")
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        let path = Self.split(TokenCredentials.removingToken(from: head.uri)).path
        send(.unauthorized, body: Array(TokenForm.page(action: path).utf8), headers: headers, to: head, ctx)
    }

    /// `/volume?VALUE` → (`/volume`, `VALUE`); percent-escapes decoded in the path.
    static func split(_ uri: String) -> (path: String, query: String?) {
        var target = Substring(uri)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        guard let mark = target.firstIndex(of: "?") else {
            return (String(target).removingPercentEncoding ?? String(target), nil)
        }
        let path = String(target[..<mark])
        return (path.removingPercentEncoding ?? path, String(target[target.index(after: mark)...]))
    }

    private func send(_ status: HTTPResponseStatus, text: String, headers: HTTPHeaders = HTTPHeaders(),
                      to head: HTTPRequestHead, _ ctx: ChannelHandlerContext) {
        var headers = headers
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        send(status, body: Array(text.utf8), headers: headers, to: head, ctx)
    }

    private func send(_ status: HTTPResponseStatus, body: [UInt8], headers: HTTPHeaders,
                      to head: HTTPRequestHead, _ ctx: ChannelHandlerContext) {
        var headers = headers
        let keepAlive = head.isKeepAlive && status != .misdirectedRequest && status != .forbidden
        headers.add(name: "Content-Length", value: "\(status == .noContent ? 0 : body.count)")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        ctx.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD && status != .noContent && !body.isEmpty {
            var buffer = ctx.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            ctx.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let done = ctx.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = ctx.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
