import NIOCore
import NIOWebSocket

/// One page's WebSocket: registered with the hub while open (it then gets the state and the beats), each text frame
/// a command or a ping (`WebCommand`), answered when there is something to say. A binary frame closes it with 1003
/// (unsupported data); a close is answered and the connection closed. Frames larger than the remote's limit never
/// reach it (the decoder closes the connection with 1009).
///
/// Threads: the connection's event loop.
final class WebSocketPage: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let hub: WebHub
    private var closing = false

    init(hub: WebHub) { self.hub = hub }

    func handlerAdded(context: ChannelHandlerContext) { hub.opened(context.channel) }

    func handlerRemoved(context: ChannelHandlerContext) { hub.closed(context.channel) }

    func channelInactive(context: ChannelHandlerContext) {
        hub.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            if let answer = hub.handle(text) { hub.send(answer, to: context.channel) }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            close(context, code: .normalClosure)
        case .binary:
            hub.counts.withLock { $0.refusedCommands += 1 }
            close(context, code: .unacceptableData)
        default:
            break
        }
    }

    /// Sends a close frame with `code`, then closes the connection.
    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        var buffer = context.channel.allocator.buffer(capacity: 2)
        buffer.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}
