import Glibc
import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// The bugs the fuzzing harness (Fuzz/web) found, each against a real server; their inputs are seeds of
/// Fuzz/corpus/web.
@Suite("Web remote: hostile requests and frames the fuzzer found (real sockets, no sound server)", .serialized)
struct WebRemoteHostileTests {
    static let upgrade =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\n"

    @Test(
        "Bytes after a response are neither answered nor counted: a page then garbage, two pages pipelined (a 400, or a second page load, was counted)"
    )
    func afterTheResponse() throws {
        let remote = try Remote()
        let page = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let withGarbage = try RawClient.request(port: remote.port, page + "\u{1}\u{2}\u{3} nonsense\r\n\r\n")
        #expect(withGarbage.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(withGarbage.hasSuffix("\r\n\r\n" + WebPage.html))
        let pipelined = try RawClient.request(port: remote.port, page + page)
        #expect(pipelined == withGarbage)
        #expect(poll(atMost: 1, every: 0.005) { remote.remote.openConnections == 0 })
        #expect(remote.remote.counts.pageLoads == 2)
        #expect(remote.remote.counts.refusedRequests == 0)
    }

    @Test(
        "Frames that break the protocol close the socket with their code and are counted: unmasked, reserved bits, an unknown opcode, a fragmented ping, a continuation first, fragments over 4096 bytes, text that is not UTF-8"
    )
    func protocolErrors() throws {
        let remote = try Remote()
        let play = Array("/metronome/play".utf8)
        let cases: [(name: String, bytes: [UInt8], code: UInt16)] = [
            ("unmasked", RawWebSocket.frame(opcode: 1, play, masked: false), 1002),
            ("reserved bits", RawWebSocket.frame(opcode: 1, play, reserved: 4), 1002),
            ("opcode 3", RawWebSocket.frame(opcode: 3, [1]), 1002),
            // NIO's decoder refused it and sent the close frame; it was not counted.
            ("a fragmented ping", RawWebSocket.frame(opcode: 9, [1], fin: false), 1002),
            // NIO's aggregator refused these; their error reached the end of the pipeline and the socket stayed open.
            ("a continuation first", RawWebSocket.frame(opcode: 0, [1, 2, 3]), 1002),
            (
                "fragments over 4096 bytes",
                RawWebSocket.frame(opcode: 1, [UInt8](repeating: 0x61, count: 3000), fin: false)
                    + RawWebSocket.frame(opcode: 0, [UInt8](repeating: 0x62, count: 3000)), 1009
            ),
            ("not UTF-8", RawWebSocket.frame(opcode: 1, [0x2F, 0xFF, 0xFE]), 1007),
        ]
        for (index, (name, bytes, code)) in cases.enumerated() {
            let socket = try RawWebSocket(port: remote.port)
            #expect(socket.receiveText()?.hasPrefix(#"{"type":"state","#) == true, "\(name)")
            try socket.client.send(bytes)
            let close = socket.receive()
            #expect(close?.opcode == 8, "\(name)")
            #expect(close.map { Array($0.payload.prefix(2)) } == [UInt8(code >> 8), UInt8(code & 0xFF)], "\(name)")
            #expect(socket.receive() == nil, "\(name): closed after the close frame")
            #expect(poll(atMost: 1, every: 0.005) { remote.remote.counts.refusedFrames == index + 1 }, "\(name)")
        }
        #expect(remote.remote.counts.refusedCommands == 0)
        #expect(remote.remote.counts.commands == 0)
        #expect(remote.service.droppedCount == 0)
    }

    @Test(
        "An upgrade without Connection: Upgrade, a frame behind it, is answered 400 (NIO upgraded it while its decoder read the frame as a request: closed unanswered, counted)"
    )
    func upgradeWithoutConnection() throws {
        let remote = try Remote()
        let client = try RawClient(port: remote.port)
        try client.send(
            Array((Self.upgrade + "\r\n").utf8) + RawWebSocket.frame(opcode: 1, Array("/metronome/play".utf8)))
        let response = String(decoding: client.readAll(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(response.hasSuffix("\r\n\r\n/ws takes WebSocket upgrades only\n"))
        #expect(remote.remote.counts.refusedRequests == 1)
        #expect(remote.remote.counts.pages == 0)
    }

    @Test(
        "An upgrade with a body is refused 400, not upgraded (NIO's upgrade handler, waiting for the body's end, kept the connection's pipeline when it closed first: a leak LeakSanitizer reports)"
    )
    func upgradeWithBody() throws {
        let remote = try Remote()
        let head = Self.upgrade + "Connection: Upgrade\r\nContent-Length: 4\r\n\r\n"
        let whole = try RawClient.request(port: remote.port, head + "abcd")
        #expect(whole.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(whole.hasSuffix("\r\n\r\na WebSocket upgrade has no body\n"))
        // The body cut short and the connection closed: under .ci/sanitize, the pipeline it kept was a leak.
        do {
            let client = try RawClient(port: remote.port)
            try client.send(head + "ab")
            #expect(poll(atMost: 1, every: 0.005) { remote.remote.openConnections == 1 })
        }
        #expect(poll(atMost: 1, every: 0.005) { remote.remote.openConnections == 0 })
        // A request its client ended before its end is malformed: NIO's decoder answers it 400, and it is counted.
        #expect(remote.remote.counts.refusedRequests == 2)
        #expect(remote.remote.counts.pages == 0)
    }
}
