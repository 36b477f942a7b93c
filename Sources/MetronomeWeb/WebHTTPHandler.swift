import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers a connection's plain HTTP requests: the page, or a refusal with its status and reason (`WebAccess`).
/// Every response closes the connection (a page makes one request, then opens its WebSocket): whatever the client
/// sent after the request answered — a pipelined request, garbage — is neither answered nor counted. A request the
/// WebSocket upgrader took never reaches it.
///
/// Threads: the connection's event loop.
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The name it has in the pipeline (the upgrade removes it by name).
    static let name = "metronome.web.http"

    private let hub: WebHub
    /// The connection's request deadline, ended once the request is answered or the connection is a WebSocket.
    private let deadline: WebRequestDeadline
    /// The verdict on the request being read, answered at its end.
    private var verdict: WebAccess.Verdict?
    /// Whether the connection's one response has been written (it closes once the response is out).
    private var answered = false

    init(hub: WebHub, deadline: WebRequestDeadline) {
        self.hub = hub
        self.deadline = deadline
    }

    /// Removed by the WebSocket upgrade: the request is done.
    func handlerRemoved(context: ChannelHandlerContext) { deadline.end() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            verdict = hub.access.check(WebAccess.Request(head))
        case .body:
            break
        case .end:
            guard let verdict else { return }
            self.verdict = nil
            respond(verdict, context: context)
        }
    }

    /// A request the decoder could not read (malformed, or a head over the bound): NIO's error handler has answered
    /// 400; the connection is closed and the request counted. An upgrade the checks declined is no such error: the
    /// request comes here next and is answered with its refusal. After the response, bytes the decoder cannot read
    /// are not a request of this connection's: the connection is closing. Nor is the request cut short by the request
    /// deadline's 408 (`WebRequestDeadline`), already counted.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !(error is NIOWebSocketUpgradeError) else { return }
        guard !answered, !deadline.timedOut else { return }
        answered = true
        deadline.end()
        hub.counts.withLock { $0.refusedRequests += 1 }
        context.close(promise: nil)
    }

    private func respond(_ verdict: WebAccess.Verdict, context: ChannelHandlerContext) {
        answered = true
        deadline.end()
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        // The page's URL may carry the token: it must not leave in a Referer.
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        let status: HTTPResponseStatus
        let body: String
        switch verdict {
        case .page:
            status = .ok
            body = WebPage.html
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "X-Frame-Options", value: "DENY")
            headers.add(
                name: "Content-Security-Policy",
                value: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                    + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
            hub.counts.withLock { $0.pageLoads += 1 }
        case .socket:
            // The upgrader declined it: not a well-formed WebSocket handshake.
            status = .badRequest
            body = "not a WebSocket handshake (Sec-WebSocket-Key and Sec-WebSocket-Version 13 are needed)\n"
            hub.counts.withLock { $0.refusedRequests += 1 }
        case .refused(let code, let reason):
            status = HTTPResponseStatus(statusCode: code)
            body = reason + "\n"
            hub.counts.withLock { $0.refusedRequests += 1 }
        }
        if case .page = verdict {} else { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        let buffer = context.channel.allocator.buffer(string: body)
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}

extension WebAccess.Request {
    /// The facts of a request head.
    init(_ head: HTTPRequestHead) {
        let headBytes =
            head.method.rawValue.utf8.count + head.uri.utf8.count + 11
            + head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        self.init(
            method: head.method.rawValue, uri: head.uri, host: head.headers.first(name: "Host"),
            origin: head.headers.first(name: "Origin"),
            upgrade: head.headers[canonicalForm: "Upgrade"].contains { $0.lowercased() == "websocket" }
                && head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" },
            body: head.headers.contains(name: "Transfer-Encoding")
                || head.headers["Content-Length"].contains { Int($0) != 0 },
            headBytes: headBytes)
    }
}
