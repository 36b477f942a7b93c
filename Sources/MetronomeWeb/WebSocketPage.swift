import NIOCore
import NIOWebSocket

/// One page's WebSocket: registered with the hub while open (it then gets the state and the beats), each text frame
/// a command or a ping (`WebCommand`), answered when there is something to say. A binary frame closes it with 1003
/// (unsupported data; counted as a refused command); a close is answered and the connection closed. A frame that
/// breaks the protocol closes it and is counted (`WebCounts.refusedFrames`): 1009 for a message over the remote's
/// bound (one frame, which NIO's decoder refuses, or fragments adding up to it), 1007 for text that is not UTF-8,
/// 1002 for the rest (unmasked, reserved bits, an unknown opcode, a fragmented or long control frame, a continuation
/// with nothing to continue, too many fragments). Once closing, nothing more it sends is read or counted.
///
/// Threads: the connection's event loop.
final class WebSocketPage: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let hub: WebHub
    private var closing = false

    init(hub: WebHub) { self.hub = hub }

    func handlerAdded(context: ChannelHandlerContext) { hub.opened(context.channel) }

    /// Called once the handler leaves the pipeline: NIO removes every handler when the channel closes, whoever
    /// closes it, so this one place unregisters the page (a push in between fails its write, nothing more).
    func handlerRemoved(context: ChannelHandlerContext) { hub.closed(context.channel) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            guard let text = String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) else {
                refuse(WebFrameError.notUTF8, context: context)
                return
            }
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

    /// A frame that broke the protocol, refused by NIO's decoder (which has sent the close frame and closes the
    /// connection), its aggregator or `WebSocketFrameCheck`; any other error (the connection's own) closes it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !closing else { return }
        if error is NIOWebSocketError {
            closing = true
            hub.counts.withLock { $0.refusedFrames += 1 }
        } else if error is NIOWebSocketFrameAggregator.Error || error is WebFrameError {
            refuse(error, context: context)
        } else {
            closing = true
            context.close(promise: nil)
        }
    }

    /// Counts a frame that broke the protocol and closes with the code that says why.
    private func refuse(_ error: any Error, context: ChannelHandlerContext) {
        hub.counts.withLock { $0.refusedFrames += 1 }
        switch error {
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge: close(context, code: .messageTooLarge)
        case WebFrameError.notUTF8: close(context, code: .dataInconsistentWithMessage)
        default: close(context, code: .protocolError)
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
