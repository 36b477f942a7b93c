import Testing

@testable import MetronomeWeb

@Suite("Web remote: who may use it (WebAccess), its address and the commands a page sends")
struct WebAccessTests {
    typealias Request = WebAccess.Request

    @Test("On a loopback bind without a token: loopback Hosts get the page, any other Host 403; method, size, path")
    func loopbackWithoutToken() {
        let access = WebAccess(token: nil, loopbackBind: true)
        for host in ["127.0.0.1:7780", "localhost:7780", "LOCALHOST", "[::1]:7780", "127.1.2.3"] {
            #expect(access.check(Request(uri: "/", host: host)) == .page, "\(host)")
        }
        #expect(
            access.check(Request(uri: "/", host: "attacker.example:7780"))
                == .refused(
                    status: 403,
                    reason: "Host attacker.example:7780 is not a loopback address, and this server is bound to one"))
        #expect(
            access.check(Request(uri: "/", host: "192.168.1.20:7780"))
                == .refused(
                    status: 403,
                    reason: "Host 192.168.1.20:7780 is not a loopback address, and this server is bound to one"))
        #expect(
            access.check(Request(uri: "/", host: nil))
                == .refused(status: 400, reason: "the request has no Host header"))
        #expect(
            access.check(Request(method: "POST", uri: "/", host: "127.0.0.1"))
                == .refused(status: 405, reason: "POST: only GET is served"))
        #expect(
            access.check(Request(uri: "/", host: "127.0.0.1", headBytes: 8193))
                == .refused(status: 431, reason: "the request head is over 8192 bytes"))
        #expect(access.check(Request(uri: "/", host: "127.0.0.1", headBytes: 8192)) == .page)
        #expect(
            access.check(Request(uri: "/secret.txt", host: "127.0.0.1"))
                == .refused(status: 404, reason: "/secret.txt: not found; the remote is at /"))
    }

    @Test(
        "The WebSocket: an upgrade from this server's own origin (or none) is taken; another origin 403; no upgrade or a body 400"
    )
    func socketOrigin() {
        let access = WebAccess(token: nil, loopbackBind: true)
        let host = "127.0.0.1:7780"
        #expect(
            access.check(Request(uri: "/ws", host: host, origin: "http://127.0.0.1:7780", upgrade: true)) == .socket)
        #expect(access.check(Request(uri: "/ws", host: host, origin: nil, upgrade: true)) == .socket)
        #expect(
            access.check(Request(uri: "/ws", host: host, origin: "http://attacker.example", upgrade: true))
                == .refused(status: 403, reason: "Origin http://attacker.example is not this server's"))
        // The same host on another port is another origin.
        #expect(
            access.check(Request(uri: "/ws", host: host, origin: "http://127.0.0.1:8000", upgrade: true))
                == .refused(status: 403, reason: "Origin http://127.0.0.1:8000 is not this server's"))
        #expect(
            access.check(Request(uri: "/ws", host: host, origin: "null", upgrade: true))
                == .refused(status: 403, reason: "Origin null is not this server's"))
        #expect(
            access.check(Request(uri: "/ws", host: host))
                == .refused(status: 400, reason: "/ws takes WebSocket upgrades only"))
        #expect(
            access.check(Request(uri: "/ws", host: host, upgrade: true, body: true))
                == .refused(status: 400, reason: "a WebSocket upgrade has no body"))
    }

    @Test("With a token: 401 without it or with another, the page and the socket with it; off loopback any Host")
    func token() {
        let token = "0123456789abcdef0123456789abcdef"
        let unauthorized = WebAccess.Verdict.refused(
            status: 401, reason: "a token is needed: open the URL metronome printed")
        for access in [WebAccess(token: token, loopbackBind: true), WebAccess(token: token, loopbackBind: false)] {
            #expect(access.check(Request(uri: "/", host: "127.0.0.1:7780")) == unauthorized)
            #expect(access.check(Request(uri: "/?token=", host: "127.0.0.1:7780")) == unauthorized)
            #expect(
                access.check(Request(uri: "/?token=0123456789abcdef0123456789abcdee", host: "127.0.0.1"))
                    == unauthorized)
            #expect(access.check(Request(uri: "/?token=\(token)x", host: "127.0.0.1")) == unauthorized)
            #expect(access.check(Request(uri: "/?token=\(token)", host: "127.0.0.1:7780")) == .page)
            #expect(access.check(Request(uri: "/?a=1&token=\(token)", host: "127.0.0.1:7780")) == .page)
            #expect(
                access.check(
                    Request(
                        uri: "/ws?token=\(token)", host: "127.0.0.1:7780", origin: "http://127.0.0.1:7780",
                        upgrade: true))
                    == .socket)
            #expect(
                access.check(
                    Request(uri: "/ws", host: "127.0.0.1:7780", origin: "http://127.0.0.1:7780", upgrade: true))
                    == unauthorized)
        }
        let open = WebAccess(token: token, loopbackBind: false)
        #expect(open.check(Request(uri: "/?token=\(token)", host: "192.168.1.20:7780")) == .page)
        #expect(open.check(Request(uri: "/", host: "192.168.1.20:7780")) == unauthorized)
    }

    @Test("Random tokens: 32 hexadecimal digits, never the same twice in 1,000")
    func randomTokens() {
        let tokens = (0..<1000).map { _ in WebAccess.randomToken() }
        #expect(Set(tokens).count == 1000)
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test(
        "[HOST:]PORT: a bare port is on 127.0.0.1, IPv6 in brackets, localhost is 127.0.0.1; each mistake in one line")
    func addresses() throws {
        #expect(try WebAddress(parsing: "7780") == WebAddress.standard)
        #expect(try WebAddress(parsing: "127.0.0.1:7780").description == "127.0.0.1:7780")
        #expect(try WebAddress(parsing: "localhost:0").description == "127.0.0.1:0")
        #expect(try WebAddress(parsing: "[::1]:7780").description == "[::1]:7780")
        #expect(try WebAddress(parsing: "[::1]:7780").isLoopback)
        #expect(try WebAddress(parsing: "127.0.0.2:80").isLoopback)
        #expect(try !WebAddress(parsing: "0.0.0.0:7780").isLoopback)
        #expect(try !WebAddress(parsing: "[::]:7780").isLoopback)
        func error(_ text: String) -> String {
            do {
                _ = try WebAddress(parsing: text)
                return "no error"
            } catch { return error.description }
        }
        #expect(error("web") == "web: the port must be a whole number from 0 to 65535 (0: any free port)")
        #expect(
            error("127.0.0.1:70000")
                == "127.0.0.1:70000: the port must be a whole number from 0 to 65535 (0: any free port)")
        #expect(error("127.0.0.1:") == "127.0.0.1:: the port must be a whole number from 0 to 65535 (0: any free port)")
        #expect(error("phone.example:7780") == "phone.example:7780: the host must be an IP address or localhost")
        #expect(error("::1:7780") == "::1:7780: give [HOST:]PORT, for instance 7780 or 127.0.0.1:7780 or [::1]:7780")
        #expect(error("[::1]7780") == "[::1]7780: give [HOST:]PORT, for instance 7780 or 127.0.0.1:7780 or [::1]:7780")
    }

    @Test("A page's frames: pings, and OSC messages in text; the addresses a page may not send, and bad tags, refused")
    func commands() throws {
        #expect(try WebCommand(parsing: "ping\t1234.5") == .ping(1234.5))
        #expect(try WebCommand(parsing: "/metronome/play") == .message(.init("/metronome/play")))
        #expect(
            try WebCommand(parsing: "/metronome/tempo\tf\t121") == .message(.init("/metronome/tempo", [.float32(121)])))
        #expect(
            try WebCommand(parsing: "/metronome/meter\tiis\t7\t8\tX.x.x.x")
                == .message(.init("/metronome/meter", [.int32(7), .int32(8), .string("X.x.x.x")])))
        #expect(
            try WebCommand(parsing: "/metronome/locate\ts\t2") == .message(.init("/metronome/locate", [.string("2")])))
        guard case .message(let tap) = try WebCommand(parsing: "/metronome/tap\tt\t5000000000"),
            case .timeTag(let tag) = tap.arguments.first
        else {
            Issue.record("no time tag")
            return
        }
        #expect(!tag.isImmediate)
        func refusal(_ text: String) -> String {
            do {
                _ = try WebCommand(parsing: text)
                return "accepted"
            } catch { return error.reason }
        }
        #expect(refusal("/metronome/quit") == "/metronome/quit: not an address the web remote sends")
        // The pattern loader is an address a page sends; which names it may load is the hub's check
        // (`WebRemoteTests.patterns`: a path, or a name not listed, is refused there).
        #expect(refusal("/metronome/pattern\ts\t/etc/passwd") == "accepted")
        #expect(refusal("/metronome/query") == "/metronome/query: not an address the web remote sends")
        #expect(refusal("/metronome/subscribe") == "/metronome/subscribe: not an address the web remote sends")
        #expect(refusal("/klick/quit") == "/klick/quit: not an address the web remote sends")
        #expect(refusal("/metronome/*") == "/metronome/*: not an address the web remote sends")
        #expect(refusal("/metronome/tempo\tff\t1") == "/metronome/tempo: 2 type tags for 1 arguments")
        #expect(refusal("/metronome/tempo\tf\tfast") == "/metronome/tempo: fast is not an f")
        #expect(refusal("/metronome/tempo\tf\tnan") == "/metronome/tempo: nan is not an f")
        #expect(refusal("/metronome/meter\tii\t4\t99999999999") == "/metronome/meter: 99999999999 is not an i")
        #expect(refusal("/metronome/tempo\tx\t1") == "/metronome/tempo: type tag x is not i, f, s or t")
        #expect(refusal("/metronome/tap\tt\tsoon") == "/metronome/tap: soon is not a time in nanoseconds")
        #expect(refusal("ping") == "ping takes the page's time in milliseconds")
        #expect(refusal("ping\tinf") == "ping takes the page's time in milliseconds")
        #expect(refusal("") == ": not an address the web remote sends")
    }

    @Test("JSON strings escape quotes, backslashes and control characters; numbers are whole where they can be")
    func json() {
        #expect(JSON.string("a \"b\" \\ c\n\u{1}") == #""a \"b\" \\ c\n\u0001""#)
        #expect(JSON.number(120.0) == "120")
        #expect(JSON.number(120.5) == "120.5")
        #expect(JSON.number(Double.nan) == "null")
        #expect(JSON.object([("a", JSON.array([JSON.bool(true), "null"]))]) == #"{"a":[true,null]}"#)
    }
}
