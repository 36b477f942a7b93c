import Foundation
import MetronomeTestSupport
import Testing

/// The web remote on an address that is not loopback, reached from another machine: two network namespaces joined by
/// a veth pair (`NetworkNamespace.pair()`, 10.254.0.1 and 10.254.0.2), the service in the first, the client in the
/// second. Nothing here uses the machine's own network. Needs root (`ip netns`).
@Suite("serve --http on a network address, reached from another namespace", .serialized)
struct WebNetworkTests {
    struct Answers: Decodable {
        var withoutToken: Int
        var wrongToken: Int
        var withToken: Int
        var pageHasTitle: Bool
        var socketWithToken: Int
        var socketForeignOrigin: Int
        var socketWithoutToken: Int
    }

    /// Asks the service at URL (its token in it) from the client's namespace, with Python's own HTTP client.
    static let client = #"""
        import http.client, json, sys, urllib.parse
        url = urllib.parse.urlsplit(sys.argv[1])
        token = urllib.parse.parse_qs(url.query)["token"][0]
        def ask(path, headers=None):
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            body = response.read() if response.status != 101 else b""
            connection.close()
            return response.status, body
        upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        origin = "http://%s:%d" % (url.hostname, url.port)
        status, page = ask("/?token=" + token)
        print(json.dumps({
            "withoutToken": ask("/")[0],
            "wrongToken": ask("/?token=" + "0" * len(token))[0],
            "withToken": status,
            "pageHasTitle": b"<title>Metronome</title>" in page,
            "socketWithToken": ask("/ws?token=" + token, dict(upgrade, Origin=origin))[0],
            "socketForeignOrigin": ask("/ws?token=" + token, dict(upgrade, Origin="http://evil.example"))[0],
            "socketWithoutToken": ask("/ws", dict(upgrade, Origin=origin))[0],
        }))
        """#

    @Test(
        "Bound to 10.254.0.1: the URL printed carries a 32-digit token; from the other namespace the page is 401 without it or with another, 200 with it; a WebSocket opens with it from the page's origin, and is refused from another origin or without it"
    )
    func tokenFromAnotherMachine() throws {
        let (server, client) = try NetworkNamespace.pair()
        let sound = try PulseServer()
        let serve = try WebServe(http: "10.254.0.1:0", namespace: server, server: sound)
        let prefix = "http://10.254.0.1:"
        #expect(serve.url.hasPrefix(prefix), "\(serve.url)")
        let token = serve.url.split(separator: "=").last.map(String.init) ?? ""
        #expect(serve.url.contains("/?token=") && token.count == 32 && token.allSatisfy(\.isHexDigit), "\(serve.url)")
        let asked = try client.start("/usr/bin/env", ["python3", "-c", Self.client, serve.url]).wait()
        #expect(asked.status == 0, "\(asked.standardError)")
        let answers = try JSONDecoder().decode(Answers.self, from: Data(asked.standardOutput.utf8))
        #expect(answers.withoutToken == 401)
        #expect(answers.wrongToken == 401)
        #expect(answers.withToken == 200)
        #expect(answers.pageHasTitle)
        #expect(answers.socketWithToken == 101)
        #expect(answers.socketForeignOrigin == 403)
        #expect(answers.socketWithoutToken == 401)
        let result = try serve.quit()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError.contains("metronome: web: 1 page loads, 1 WebSockets, "), "\(result.standardError)")
    }
}
