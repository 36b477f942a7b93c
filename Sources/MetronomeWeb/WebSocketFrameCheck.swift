import NIOCore
import NIOWebSocket

/// Refuses the frames of a page that break the WebSocket protocol where NIO's decoder lets them through (RFC 6455,
/// sections 5.1 to 5.3): a frame that is not masked (a client masks every frame), one with a reserved bit set (no
/// extension was agreed), one whose opcode the protocol does not define. Such a frame goes no further; its error goes
/// on to the page (`WebSocketPage`), which counts it and closes the socket with 1002. Between NIO's frame decoder and
/// its aggregator, which drops a fragment's mask and reserved bits when it joins the fragments.
///
/// Threads: the connection's event loop.
final class WebSocketFrameCheck: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.maskKey == nil {
            context.fireErrorCaught(WebFrameError.unmasked)
        } else if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            context.fireErrorCaught(WebFrameError.reservedBits)
        } else if !WebSocketFrameCheck.opcodes.contains(frame.opcode) {
            context.fireErrorCaught(WebFrameError.unknownOpcode)
        } else {
            context.fireChannelRead(data)
        }
    }

    /// The opcodes RFC 6455 defines.
    static let opcodes: [WebSocketOpcode] = [.continuation, .text, .binary, .connectionClose, .ping, .pong]
}

/// Why a page's frame broke the WebSocket protocol, in the remote's own checks (NIO's decoder and aggregator have
/// their errors).
enum WebFrameError: Error, Hashable {
    /// A frame from the page without a mask.
    case unmasked
    /// A frame with RSV1, RSV2 or RSV3 set.
    case reservedBits
    /// An opcode of 3–7 or 11–15.
    case unknownOpcode
    /// A text message that is not UTF-8.
    case notUTF8
}
