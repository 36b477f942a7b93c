// The web remote: any bytes a TCP client may send `metronome serve --http`, through the pipeline the server gives each
// connection it accepts (WebRemote.configure: NIO's HTTP/1.1 decoder with its limits and error handling, the WebSocket
// upgrader, our access checks and handlers, NIO's frame decoder and aggregator, the page's commands into the OSC
// service) on an EmbeddedChannel, over a service whose session is built but never started. The first byte says how
// the rest arrives: bit 0, a token is needed; bits 1-3, the size of each read (all at once, or 1, 2, 3, 7, 16, 64 or
// 512 bytes); bit 4, a second connection comes while this one is open, past a limit of one; bit 5, the client reads
// nothing, so the connection cannot take more (a page is then closed as a slow one, without a close frame).
//
// Checked: nothing traps, and no error reaches the pipeline's end unhandled (NIO would drop it and leave the
// connection open); the server sends whole HTTP responses with a documented status (101, 200, 400, 401, 403, 404,
// 405, 431), after a 101 only well-formed, unmasked server frames (text, pong, close) with a close code of 1000, 1002,
// 1003, 1007 or 1009; a response other than 101 is the only one and the connection is then closed, as it is after a
// close frame or a slow page's close, and only then; the counters agree with what was sent (page loads, refused requests, WebSockets,
// refused frames, refused commands, slow pages); a connection past the limit is closed with nothing sent and counted; once the
// client has gone, no connection or page is left open.
import FuzzSupport
import MetronomeKit
import MetronomeService
import MetronomeWeb
import NIOCore
import NIOEmbedded

/// The token of inputs whose first byte asks for one (the seeds that need it carry it).
let token = "0123456789abcdef0123456789abcdef"
/// The sizes the stream is read in; 0 is all at once.
let readSizes = [0, 1, 2, 3, 7, 16, 64, 512]
/// The statuses the remote answers with (docs/web.md, `WebAccess`).
let documentedStatuses: Set = [101, 200, 400, 401, 403, 404, 405, 408, 431]
/// The codes a server's close frame may carry: a normal close, a protocol error, a binary message, text that is not
/// UTF-8, a message over the bound.
let documentedCloseCodes: Set = [1000, 1002, 1003, 1007, 1009]
let clicks = ClickSynthesizer.clickSet(.wood, sampleRate: .standard)
let bank = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
/// One pattern a page may name (`/metronome/pattern⇥s⇥basic`): its file does not exist, so loading it is refused.
let patterns = WebPatterns([.init(name: "basic", path: "/nonexistent/basic.metro")])

/// What the server sent on the connection.
struct Sent {
    /// The statuses of the responses other than 101, in order.
    var statuses: [Int] = []
    /// Whether a 101 came.
    var upgraded = false
    /// The close codes of the server's close frames.
    var closeCodes: [Int] = []
    /// Text frames telling the page a command was refused.
    var refusals = 0
}

/// Reads the server's bytes as HTTP responses and then, after a 101, WebSocket frames, checking their form.
func read(_ output: [UInt8]) -> Sent {
    var sent = Sent()
    var index = 0
    let text = { String(decoding: output, as: UTF8.self).prefix(2000) }
    while index < output.count, !sent.upgraded {
        guard let end = find([13, 10, 13, 10], in: output, from: index) else {
            require(false, "a response head is cut short: \(text())")
            return sent
        }
        let lines = String(decoding: output[index..<end], as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first ?? ""
        let status = Int(statusLine.dropFirst(9).prefix(3)) ?? 0
        require(statusLine.hasPrefix("HTTP/1.1 ") && documentedStatuses.contains(status), "status line \(statusLine)")
        index = end + 4
        if status == 101 {
            sent.upgraded = true
            break
        }
        let lengths = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingPrefix(" "))
        }
        require(lengths.count == 1, "a \(status) response without one Content-Length: \(text())")
        require(index + lengths[0] <= output.count, "a \(status) response's body is cut short: \(text())")
        index += lengths[0]
        sent.statuses.append(status)
    }
    while index < output.count {
        require(sent.closeCodes.isEmpty, "a frame after the close frame: \(output[index...].prefix(64))")
        require(output.count - index >= 2, "a frame head is cut short")
        let first = output[index]
        let second = output[index + 1]
        require(first & 0xF0 == 0x80, "a server frame not final or with reserved bits: \(first)")
        require(second & 0x80 == 0, "a masked server frame")
        var length = Int(second & 0x7F)
        var start = index + 2
        if length >= 126 {
            let bytes = length == 126 ? 2 : 8
            require(start + bytes <= output.count, "a frame's length is cut short")
            length = output[start..<(start + bytes)].reduce(0) { $0 << 8 | Int($1) }
            start += bytes
        }
        require(length <= output.count - start, "a frame's payload is cut short")
        let payload = Array(output[start..<(start + length)])
        switch first & 0x0F {
        case 0x1:
            let message = String(decoding: payload, as: UTF8.self)
            require(
                ["state", "pong", "refused"].contains { message.hasPrefix("{\"type\":\"\($0)\"") },
                "a text frame the page does not expect: \(message.prefix(200))")
            if message.hasPrefix("{\"type\":\"refused\"") { sent.refusals += 1 }
        case 0x8:
            require(payload.count >= 2, "a close frame without a code")
            let code = Int(payload[0]) << 8 | Int(payload[1])
            require(documentedCloseCodes.contains(code), "close code \(code)")
            sent.closeCodes.append(code)
        case 0xA:
            break
        default:
            require(false, "a server frame with opcode \(first & 0x0F)")
        }
        index = start + length
    }
    return sent
}

/// Where `pattern` first occurs in `bytes` from `start`.
func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= pattern.count else { return nil }
    return (start...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
}

/// The socket under the pipeline, first in it: keeps the bytes the server writes while the connection is open, and,
/// as a socket does and an EmbeddedChannel does not, fails a write once it is closed (sending nothing). What reaches
/// it is bytes: the encoders are before it (a part that was not encoded stops the run).
final class Socket: ChannelOutboundHandler {
    typealias OutboundIn = IOData

    /// What was sent, in order.
    var sent: [UInt8] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard context.channel.isActive else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data) else {
            require(false, "the server wrote a file region")
            return
        }
        sent += buffer.readableBytesView
        promise?.succeed(())
    }
}

fuzz { bytes in
    guard let options = bytes.first else { return }
    let stream = bytes.dropFirst()
    let session = try! Session(
        map: TempoMap.steady(tempo: BPM(120)), clicks: clicks, configuration: try! MixerConfiguration())
    let service = try! OSCService(session: session, settings: ServiceSettings(bank: bank)) { _, _ in }
    let loop = EmbeddedEventLoop()
    let hub = WebHub(
        service: service, access: WebAccess(token: options & 1 != 0 ? token : nil, loopbackBind: true),
        patterns: patterns, loop: loop, maximumConnections: 1)
    let channel = EmbeddedChannel(loop: loop)
    try! WebRemote.configure(channel, hub: hub).wait()
    let socket = Socket()
    try! channel.pipeline.syncOperations.addHandler(socket, position: .first)
    try! channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_000)).wait()
    channel.isWritable = options & 32 == 0
    if options & 16 != 0 {
        // A loop of its own: finishing a channel drains its loop's scheduled tasks, the first connection's request
        // deadline among them.
        let secondLoop = EmbeddedEventLoop()
        defer { try! secondLoop.syncShutdownGracefully() }
        let second = EmbeddedChannel(loop: secondLoop)
        try! WebRemote.configure(second, hub: hub).wait()
        require(try! second.readOutbound(as: IOData.self) == nil, "a connection past the limit got bytes")
        require(!second.isActive, "a connection past the limit is open")
        require(hub.counts.withLock { $0.refusedConnections } == 1, "a connection past the limit was not counted")
        _ = try? second.finish(acceptAlreadyClosed: true)
    }
    let size = readSizes[Int(options >> 1) & 7]
    var offset = stream.startIndex
    while offset < stream.endIndex, channel.isActive {
        let end = size == 0 ? stream.endIndex : min(stream.endIndex, offset + size)
        do {
            try channel.writeInbound(channel.allocator.buffer(bytes: stream[offset..<end]))
        } catch {
            require(false, "an error reached the end of the pipeline unhandled: \(error)")
        }
        offset = end
    }
    // A state push, if a page is open.
    loop.advanceTime(by: .milliseconds(40))
    let output = socket.sent
    let closedByServer = !channel.isActive
    let counts = hub.counts.withLock { $0 }
    let sent = read(output)
    let described = { "\(sent) \(counts): \(String(decoding: output, as: UTF8.self).prefix(1000))" }
    require(sent.statuses.count <= 1, "more than one response on a connection: \(described())")
    require(counts.connections == 1, "connections \(counts.connections)")
    require(counts.pageLoads == sent.statuses.count { $0 == 200 }, "page loads: \(described())")
    require(counts.refusedRequests == sent.statuses.count { $0 >= 400 }, "refused requests: \(described())")
    require(counts.pages == (sent.upgraded ? 1 : 0), "WebSockets: \(described())")
    require(sent.closeCodes.count <= 1, "close frames: \(described())")
    require(
        counts.refusedFrames == sent.closeCodes.count { [1002, 1007, 1009].contains($0) },
        "refused frames: \(described())")
    require(
        counts.refusedCommands == sent.refusals + sent.closeCodes.count { $0 == 1003 },
        "refused commands: \(described())")
    require(counts.slowPages == (sent.upgraded && options & 32 != 0 ? 1 : 0), "slow pages: \(described())")
    let answered = !sent.statuses.isEmpty || !sent.closeCodes.isEmpty || counts.slowPages == 1
    require(closedByServer == answered, "closed by the server: \(closedByServer), \(described())")
    require(hub.openPages == (closedByServer ? 0 : counts.pages), "pages open: \(hub.openPages), \(described())")
    require(counts.timedOutRequests == 0, "timed out before the request timeout: \(described())")
    // A request left unfinished is answered 408 once the request timeout has passed, counted once, and closed.
    if channel.isActive, !sent.upgraded {
        loop.advanceTime(by: hub.requestTimeout)
        let after = hub.counts.withLock { $0 }
        let late = read(socket.sent)
        let told = { "\(late) \(after): \(String(decoding: socket.sent, as: UTF8.self).prefix(1000))" }
        require(late.statuses == [408], "no 408 after the request timeout: \(told())")
        require(!channel.isActive, "open after its 408: \(told())")
        require(after.timedOutRequests == 1 && after.refusedRequests == 1, "the 408 counted wrong: \(told())")
    }
    // The client goes; then nothing of it is left.
    if channel.isActive { try! channel.close().wait() }
    loop.advanceTime(by: .milliseconds(40))
    require(hub.openConnections == 0, "\(hub.openConnections) connections open after the client left")
    require(hub.openPages == 0, "\(hub.openPages) pages open after the client left")
    _ = try? channel.finish(acceptAlreadyClosed: true)
    try! loop.syncShutdownGracefully()
}
