import Foundation
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeOSC
import MetronomeService
import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// A web remote on 127.0.0.1 (a free port) over a service whose session is built but never started: what the server
/// answers does not need a sound server.
final class Remote {
    let service: OSCService
    let remote: WebRemote
    var port: Int { remote.address.port }

    init(
        token: String? = nil, patterns: WebPatterns = WebPatterns(),
        maximumConnections: Int = WebRemote.defaultMaximumConnections,
        requestTimeout: Duration = WebRemote.defaultRequestTimeout
    ) throws {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: MixerConfiguration())
        service = try OSCService(
            session: session, settings: ServiceSettings(bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard))
        ) { _, _ in }
        remote = try WebRemote(
            address: WebAddress(parsing: "127.0.0.1:0"), token: token, service: service, patterns: patterns,
            maximumConnections: maximumConnections, requestTimeout: requestTimeout)
    }

    deinit { remote.stop() }

    /// The status line and body of `GET path` with `headers`.
    func get(_ path: String, host: String? = nil, headers: [String] = []) throws -> (status: String, body: String) {
        let lines = ["GET \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")"] + headers
        let response = try RawClient.request(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n")
        // "\r\n" is one Character in Swift: look for it as a string.
        let status = String(response[..<(response.range(of: "\r\n")?.lowerBound ?? response.endIndex)])
        guard let end = response.range(of: "\r\n\r\n") else { return (status, "") }
        return (status, String(response[end.upperBound...]))
    }
}

@Suite("Web remote: the server over an idle session (real sockets, no sound server)", .serialized)
struct WebRemoteTests {
    @Test("GET / is the page, in the binary, under 100 KB, with no address of another host in it")
    func page() throws {
        let remote = try Remote()
        let (status, body) = try remote.get("/")
        #expect(status == "HTTP/1.1 200 OK")
        #expect(body == WebPage.html)
        #expect(body.contains("<title>Metronome</title>"))
        #expect(body.utf8.count < 100_000)
        // No CDN, nothing fetched from elsewhere.
        #expect(!body.contains("http://") && !body.contains("https://") && !body.contains("//cdn"))
        #expect(remote.remote.counts.pageLoads == 1)
        let response = try RawClient.request(port: remote.port, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = response.prefix { $0 != "<" }
        for line in [
            "Connection: close",
            "Content-Type: text/html; charset=utf-8",
            "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                + "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            "X-Frame-Options: DENY", "Referrer-Policy: no-referrer", "Cache-Control: no-store",
        ] {
            #expect(head.contains("\r\n\(line)\r\n"), "\(line)")
        }
    }

    @Test(
        "Refusals with their status and reason: a rebinding Host 403, a foreign Origin's upgrade 403, POST 405, 404, a head over 8 KB or garbage 400 and closed"
    )
    func refusals() throws {
        let remote = try Remote()
        let port = remote.port
        #expect(
            try remote.get("/", host: "attacker.example:\(port)")
                == (
                    "HTTP/1.1 403 Forbidden",
                    "Host attacker.example:\(port) is not a loopback address, and this server is bound to one\n"
                ))
        #expect(try remote.get("/x") == ("HTTP/1.1 404 Not Found", "/x: not found; the remote is at /\n"))
        #expect(try remote.get("/ws") == ("HTTP/1.1 400 Bad Request", "/ws takes WebSocket upgrades only\n"))
        let post = try RawClient.request(port: port, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(post.hasSuffix("\r\n\r\nPOST: only GET is served\n"))
        do {
            _ = try RawWebSocket(port: port, origin: "http://attacker.example")
            Issue.record("a foreign origin's upgrade was taken")
        } catch let refused as RawWebSocket.Refused {
            #expect(refused.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        }
        do {
            _ = try RawWebSocket(port: port, host: "attacker.example:\(port)")
            Issue.record("a rebinding Host's upgrade was taken")
        } catch let refused as RawWebSocket.Refused {
            #expect(refused.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        }
        // A head over the bound: the decoder refuses it before any handler sees it.
        let long = try RawClient.request(
            port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 9000))\r\n\r\n"
        )
        #expect(long == "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        let garbage = try RawClient.request(port: port, "\u{1}\u{2}\u{3} nonsense\r\n\r\n")
        #expect(garbage == "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        #expect(remote.remote.counts.refusedRequests == 8)
        #expect(remote.remote.counts.pageLoads == 0)
    }

    @Test("--http-token: 401 without the token, and with another; the page and the socket with it")
    func token() throws {
        let token = WebAccess.randomToken()
        let remote = try Remote(token: token)
        let port = remote.port
        let refusal = ("HTTP/1.1 401 Unauthorized", "a token is needed: open the URL metronome printed\n")
        #expect(try remote.get("/") == refusal)
        #expect(try remote.get("/?token=\(WebAccess.randomToken())") == refusal)
        #expect(try remote.get("/?token=\(token)").status == "HTTP/1.1 200 OK")
        #expect(remote.remote.urls == ["http://127.0.0.1:\(port)/?token=\(token)"])
        do {
            _ = try RawWebSocket(port: port, path: "/ws")
            Issue.record("an upgrade without the token was taken")
        } catch let refused as RawWebSocket.Refused {
            #expect(refused.head.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
        }
        let socket = try RawWebSocket(port: port, path: "/ws?token=\(token)")
        #expect(
            socket.receiveText()?.hasPrefix(
                "{\"type\":\"state\",\"state\":\"stopped\",\"playing\":false,\"tempo\":120,") == true)
    }

    @Test(
        "The socket: the state first, a pong with the host's time, a refused command's reason, counted by the service")
    func socket() throws {
        let remote = try Remote()
        let socket = try RawWebSocket(port: remote.port)
        let state = try #require(socket.receiveText())
        #expect(
            state.hasPrefix(
                #"{"type":"state","state":"stopped","playing":false,"tempo":120,"meter":"4/4","beats":4,"unit":4,"#))
        let before = HostTime.now().nanoseconds
        try socket.send("ping\t42.5")
        let pong = try #require(socket.receiveText())
        #expect(pong.hasPrefix(#"{"type":"pong","page":42.5,"host":"#))
        let host = Int64(pong.dropFirst(#"{"type":"pong","page":42.5,"host":"#.count).dropLast()) ?? 0
        #expect(host >= before && host <= HostTime.now().nanoseconds)
        try socket.send("/metronome/tempo\tf\t0")
        #expect(
            socket.receiveText()
                == #"{"type":"refused","reason":"/metronome/tempo: 0.0: tempo must be a number from 1 to 1000 (quarter notes per minute)"}"#
        )
        #expect(remote.service.droppedCount == 1)
        try socket.send("/metronome/quit")
        #expect(
            socket.receiveText()
                == #"{"type":"refused","reason":"/metronome/quit: not an address the web remote sends"}"#)
        #expect(!remote.service.quitRequested)
        // A command the service takes is answered with nothing; the volume is at once, so the next state shows it.
        try socket.send("/metronome/volume\tf\t0.5")
        let changed = try #require(socket.receiveText())
        #expect(changed.contains(#""volume":0.5,"#))
        #expect(remote.remote.counts.commands == 2)
        #expect(remote.remote.counts.refusedCommands == 2)
    }

    @Test(
        "Patterns: the state lists the names a page may load; a listed name loads its file and shows under its name; a path or another name is refused, counted"
    )
    func patterns() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Patterns").path
        let listed = try #require(WebPatterns.files(in: folder))
        #expect(listed.map(\.name).contains("basic"))
        #expect(listed.allSatisfy { $0.path == folder + "/" + $0.name + ".metro" })
        // A name taken earlier is not listed again.
        let patterns = WebPatterns(
            [.init(name: "mine", path: folder + "/chords.metro")] + listed
                + [.init(name: "basic", path: "/nowhere/basic.metro")])
        #expect(patterns.entries.count == listed.count + 1)
        #expect(patterns.path(named: "basic") == folder + "/basic.metro")
        let remote = try Remote(patterns: patterns)
        let socket = try RawWebSocket(port: remote.port)
        let names = "[" + patterns.entries.map { "\"\($0.name)\"" }.joined(separator: ",") + "]"
        #expect(socket.receiveText()?.contains(#""patterns":"# + names) == true)
        for refused in [
            "/metronome/pattern\ts\t\(folder)/basic.metro", "/metronome/pattern\ts\tnone",
            "/metronome/pattern\ti\t1", "/metronome/pattern",
        ] {
            try socket.send(refused)
            #expect(
                socket.receiveText()
                    == #"{"type":"refused","reason":"/metronome/pattern: not a pattern this remote lists"}"#)
        }
        try socket.send("/metronome/pattern\ts\tmine")
        let loaded = try #require(socket.receiveText())
        #expect(loaded.contains(#""pattern":"mine","#), "\(loaded)")
        #expect(remote.remote.counts.commands == 5)
        #expect(remote.remote.counts.refusedCommands == 4)
    }

    @Test("Several pages: a change made on one, and one made over OSC, reach every page open; a closed page is let go")
    func severalPages() throws {
        let remote = try Remote()
        let pages = [try RawWebSocket(port: remote.port), try RawWebSocket(port: remote.port)]
        for page in pages { #expect(page.receiveText()?.contains(#""volume":1,"#) == true) }
        try pages[0].send("/metronome/volume\tf\t0.25")
        for page in pages { #expect(page.receiveText()?.contains(#""volume":0.25,"#) == true) }
        // The same service over OSC: the pages hear of it as of their own.
        remote.service.handle(
            .message(OSCMessage("/metronome/volume", [.float32(0.75)])), from: OSCEndpoint.loopback(port: 9000))
        for page in pages { #expect(page.receiveText()?.contains(#""volume":0.75,"#) == true) }
        #expect(remote.remote.counts.pages == 2)
        try pages[1].send(opcode: 8, [0x03, 0xE8])
        let close = try #require(pages[1].receive())
        #expect(close.opcode == 8)
        #expect(Array(close.payload.prefix(2)) == [0x03, 0xE8])
        remote.service.handle(
            .message(OSCMessage("/metronome/volume", [.float32(0.5)])), from: OSCEndpoint.loopback(port: 9000))
        #expect(pages[0].receiveText()?.contains(#""volume":0.5,"#) == true)
        // The first page stays open through the wait: an optimized build may otherwise end the array's lifetime at
        // its last use above, and the sockets' deinit would close the page it counts.
        withExtendedLifetime(pages) {
            poll(atMost: 1, every: 0.005) { remote.remote.openConnections <= 1 }
            #expect(remote.remote.openConnections == 1)
        }
    }

    @Test("Bounds: a message over 4096 bytes closes the socket with 1009; a binary frame with 1003")
    func frameBounds() throws {
        let remote = try Remote()
        let socket = try RawWebSocket(port: remote.port)
        _ = socket.receiveText()
        try socket.send(String(repeating: "x", count: 5000))
        let close = try #require(socket.receive())
        #expect(close.opcode == 8)
        #expect(Array(close.payload.prefix(2)) == [0x03, 0xF1])
        let binary = try RawWebSocket(port: remote.port)
        _ = binary.receiveText()
        try binary.send(opcode: 2, [1, 2, 3])
        let closed = try #require(binary.receive())
        #expect(closed.opcode == 8)
        #expect(Array(closed.payload.prefix(2)) == [0x03, 0xEB])
        // The message over the bound broke the protocol; the binary frame is a command the remote does not take.
        #expect(remote.remote.counts.refusedFrames == 1)
        #expect(remote.remote.counts.refusedCommands == 1)
    }

    @Test(
        "Bounds: beyond the connection limit a connection is closed at once and counted; a freed place is taken again")
    func connectionLimit() throws {
        let remote = try Remote(maximumConnections: 2)
        var held = [try RawClient(port: remote.port), try RawClient(port: remote.port)]
        // The server takes connections in order: wait until both are counted.
        poll(atMost: 1, every: 0.005) { remote.remote.openConnections >= 2 }
        #expect(remote.remote.openConnections == 2)
        let third = try RawClient(port: remote.port)
        #expect(third.readAll().isEmpty)
        #expect(remote.remote.counts.refusedConnections == 1)
        held.removeLast()
        poll(atMost: 1, every: 0.005) { remote.remote.openConnections <= 1 }
        #expect(try remote.get("/").status == "HTTP/1.1 200 OK")
        #expect(remote.remote.counts.refusedConnections == 1)
        #expect(held.count == 1)
    }

    @Test(
        "Bounds: a connection with no whole request within the timeout is answered 408 and closed, and counted; 31 such connections and a page, the remote full, lock others out only until then; the page stays open"
    )
    func requestTimeout() throws {
        let remote = try Remote(requestTimeout: .milliseconds(400))
        let timedOut =
            "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: 31\r\n\r\nno whole request within 400 ms\n"
        let page = try RawWebSocket(port: remote.port)
        #expect(page.receiveText()?.hasPrefix("{\"type\":\"state\"") == true)
        // Every place left held by a connection that never finishes: silent, a head cut short, a body never sent.
        var held: [RawClient] = []
        for index in 0..<(WebRemote.defaultMaximumConnections - 1) {
            let client = try RawClient(port: remote.port)
            switch index % 3 {
            case 0: break
            case 1: try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n")
            default: try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\nContent-Length: 10\r\n\r\nab")
            }
            held.append(client)
        }
        poll(atMost: 1, every: 0.005) { remote.remote.openConnections >= WebRemote.defaultMaximumConnections }
        #expect(remote.remote.openConnections == WebRemote.defaultMaximumConnections)
        // Full: a page's request is refused at the limit, for now.
        #expect(try RawClient.request(port: remote.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").isEmpty)
        // Each held connection gets its 408 and is closed, all of it within the timeout and a little more: the time
        // this process was kept from running meanwhile (CI's parallel lane in the idle class) is not the remote's.
        let meter = WakeMeter()
        let start = ContinuousClock.now
        for client in held { #expect(String(decoding: client.readAll(), as: UTF8.self) == timedOut) }
        let kept = meter.stop()
        let elapsed = ContinuousClock.now - start
        #expect(
            elapsed - kept.late < .seconds(2),
            "\(elapsed), the process kept from running \(kept.late) of it (at most \(kept.latest) at once)")
        poll(atMost: 1, every: 0.005) { remote.remote.openConnections <= 1 }
        #expect(try remote.get("/").status == "HTTP/1.1 200 OK")
        let counts = remote.remote.counts
        #expect(counts.timedOutRequests == 31)
        #expect(counts.refusedRequests == 31)
        #expect(counts.refusedConnections == 1)
        // The page, open all along, is no request waiting: it still gets what the service pushes.
        try page.send("/metronome/volume\tf\t0.25")
        #expect(page.receiveText()?.contains(#""volume":0.25,"#) == true)
        // A request answered in time is not answered again when the deadline would have come.
        let answered = try RawClient(port: remote.port)
        try answered.send("GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1:\(remote.port)\r\n\r\n")
        usleep(600_000)
        #expect(String(decoding: answered.readAll(), as: UTF8.self).hasPrefix("HTTP/1.1 404 "))
        #expect(remote.remote.counts.timedOutRequests == 31)
    }
}
