import NIOCore

/// Gives a connection `WebHub.requestTimeout` to send a whole request: one that has not by then (a head sent a byte at
/// a time, a body never finished, nothing at all) is answered `408 Request Timeout` and closed, and counted as a
/// refused request that timed out. Without it, a few dozen connections that never finish a request would hold every
/// place of the connection limit, and the remote would take no page until they closed (a "slowloris").
///
/// It sits first in the pipeline, under the HTTP codec, and writes its answer as bytes: a request half read by the
/// decoder does not matter, and once it has answered, nothing more the client sends is read. `WebHTTPHandler` ends it
/// when the request is answered (its response, or NIO's `400`) and when the connection becomes a WebSocket; from
/// then on it only passes bytes on.
///
/// Threads: the connection's event loop.
final class WebRequestDeadline: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let hub: WebHub
    private var task: Scheduled<Void>?
    /// Whether the request was answered in time (the deadline is off) or the deadline answered it.
    private var ended = false
    /// Whether it answered 408: what the decoder makes of the request cut short is not another refusal.
    private(set) var timedOut = false

    init(hub: WebHub) { self.hub = hub }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { end() }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !timedOut else { return }
        context.fireChannelRead(data)
    }

    /// The request was answered, or the connection is a WebSocket now: no deadline any more.
    func end() {
        ended = true
        task?.cancel()
        task = nil
    }

    private func arm(context: ChannelHandlerContext) {
        guard task == nil, !ended else { return }
        task = context.eventLoop.assumeIsolated().scheduleTask(in: hub.requestTimeout) { [self] in
            expire(context: context)
        }
    }

    private func expire(context: ChannelHandlerContext) {
        task = nil
        guard !ended else { return }
        ended = true
        timedOut = true
        hub.counts.withLock {
            $0.refusedRequests += 1
            $0.timedOutRequests += 1
        }
        let milliseconds = hub.requestTimeout.nanoseconds / 1_000_000
        let limit = milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
        let body = "no whole request within \(limit)\n"
        let head =
            "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let buffer = context.channel.allocator.buffer(string: head + body)
        context.writeAndFlush(NIOAny(buffer)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}
