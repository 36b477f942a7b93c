/// Who may use the web remote: the checks every request goes through before it is answered, pure so that tests give
/// them requests directly.
///
/// In order: a request head over `maximumHeadBytes` is 431; any method but GET is 405; no `Host` header is 400; on a
/// loopback bind a `Host` that is not a loopback name or address is 403 (DNS rebinding: a page of another site whose
/// name was made to point here); with a token, a request whose `token` query parameter is not it is 401; `/` is the
/// page; `/ws` is the WebSocket, for an upgrade request whose `Origin`, when there is one, is this server's own
/// (`http://` and the `Host` header), else 403 (another site's page), and 400 without an upgrade or with a body;
/// any other path is 404.
public struct WebAccess: Sendable, Hashable {
    /// The token every request must carry (`?token=`), or nil when none is needed.
    public let token: String?
    /// Whether the server is bound to a loopback address, so that only loopback `Host` headers are taken.
    public let loopbackBind: Bool

    /// The longest request head taken (request line and headers), in bytes.
    public static let maximumHeadBytes = 8192

    /// Checks for a server bound to a loopback address or not, with or without a token.
    public init(token: String?, loopbackBind: Bool) {
        self.token = token
        self.loopbackBind = loopbackBind
    }

    /// What a request asks, as the checks see it.
    public struct Request: Sendable, Hashable {
        /// `GET`, `POST`…
        public var method: String
        /// The request target: path and query.
        public var uri: String
        /// The `Host` header, if any.
        public var host: String?
        /// The `Origin` header, if any.
        public var origin: String?
        /// Whether it asks for a WebSocket: `Upgrade: websocket` and `Connection: Upgrade` (RFC 6455, 4.2.1; NIO's
        /// decoder reads on past a head without the latter, so the two would disagree on where the frames begin).
        public var upgrade: Bool
        /// Whether a body follows the head (`Content-Length` other than 0, or `Transfer-Encoding`). An upgrade with
        /// one is refused: NIO's upgrade handler, ready to upgrade, waits for the body's end, and a connection closed
        /// before it leaves the handler holding its own context (every such connection's pipeline was leaked).
        public var body: Bool
        /// The size of the request line and headers, in bytes.
        public var headBytes: Int

        /// A request's facts.
        public init(
            method: String = "GET", uri: String, host: String?, origin: String? = nil, upgrade: Bool = false,
            body: Bool = false, headBytes: Int = 0
        ) {
            self.method = method
            self.uri = uri
            self.host = host
            self.origin = origin
            self.upgrade = upgrade
            self.body = body
            self.headBytes = headBytes
        }
    }

    /// What is done with a request.
    public enum Verdict: Sendable, Hashable {
        /// Serve the page.
        case page
        /// Upgrade to the WebSocket.
        case socket
        /// Refuse with an HTTP status and a one-line reason.
        case refused(status: Int, reason: String)
    }

    /// The verdict on `request`.
    public func check(_ request: Request) -> Verdict {
        guard request.headBytes <= WebAccess.maximumHeadBytes else {
            return .refused(status: 431, reason: "the request head is over \(WebAccess.maximumHeadBytes) bytes")
        }
        guard request.method == "GET" else {
            return .refused(status: 405, reason: "\(request.method): only GET is served")
        }
        guard let host = request.host, !host.isEmpty else {
            return .refused(status: 400, reason: "the request has no Host header")
        }
        if loopbackBind, !WebAddress.isLoopback(WebAccess.hostName(host)) {
            return .refused(
                status: 403, reason: "Host \(host) is not a loopback address, and this server is bound to one")
        }
        let (path, query) = WebAccess.split(request.uri)
        if let token, !WebAccess.same(WebAccess.parameter("token", in: query) ?? "", token) {
            return .refused(status: 401, reason: "a token is needed: open the URL metronome printed")
        }
        switch path {
        case "/":
            return .page
        case "/ws":
            guard request.upgrade else { return .refused(status: 400, reason: "/ws takes WebSocket upgrades only") }
            guard !request.body else { return .refused(status: 400, reason: "a WebSocket upgrade has no body") }
            if let origin = request.origin, origin.lowercased() != "http://" + host.lowercased() {
                return .refused(status: 403, reason: "Origin \(origin) is not this server's")
            }
            return .socket
        default:
            return .refused(status: 404, reason: "\(path): not found; the remote is at /")
        }
    }

    /// The name or address of a `Host` header, without its port and an IPv6 address's brackets.
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<close])
        }
        return String(host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]).lowercased()
    }

    /// A request target's path and query (without the `?`).
    static func split(_ uri: String) -> (path: Substring, query: Substring) {
        guard let mark = uri.firstIndex(of: "?") else { return (Substring(uri), "") }
        return (uri[..<mark], uri[uri.index(after: mark)...])
    }

    /// The value of a query parameter, as written (a token is letters and digits, never percent-encoded).
    static func parameter(_ name: String, in query: Substring) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count == 2 ? String(parts[1]) : "" }
        }
        return nil
    }

    /// Compares two strings in a time that depends on their lengths only, not on where they first differ.
    static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// A new random token: 128 bits from the system's generator, as 32 hexadecimal digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next(), generator.next()] as [UInt64]
        return words.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
