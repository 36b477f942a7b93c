import NIOCore

/// Where the web remote listens: `[HOST:]PORT`, as `serve --http` takes it. A bare port is on `127.0.0.1`; HOST is
/// a dotted IPv4 address, a bracketed IPv6 one (`[::1]:7780`) or `localhost` (names are not resolved: a remote
/// reachable from the network is given by its address). Port 0 asks for any free port.
public struct WebAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host as given (`127.0.0.1`, `::1`, `0.0.0.0`), without brackets.
    public let host: String
    /// The TCP port (0: any free one).
    public let port: Int

    /// The default address of `serve --http`: `127.0.0.1:7780`.
    public static let standard = WebAddress(host: "127.0.0.1", port: 7780)

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `[HOST:]PORT`.
    /// - Throws: `WebAddressError` naming what is wrong.
    public init(parsing text: String) throws(WebAddressError) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .malformed(text)
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { throw .malformed(text) }
        }
        guard let port = Int(portText), (0...65535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw .badPort(text)
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard (try? SocketAddress(ipAddress: host, port: port)) != nil else { throw .unknownHost(text) }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can reach it: `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool { WebAddress.isLoopback(host) }

    /// Whether a host (an address, or `localhost`) names this machine's loopback interface.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `HOST:PORT`, an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why `[HOST:]PORT` could not be read.
public enum WebAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not `[HOST:]PORT`.
    case malformed(String)
    /// The port is not a whole number from 0 to 65535.
    case badPort(String)
    /// The host is not an IP address or `localhost`.
    case unknownHost(String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .malformed(let text): "\(text): give [HOST:]PORT, for instance 7780 or 127.0.0.1:7780 or [::1]:7780"
        case .badPort(let text): "\(text): the port must be a whole number from 0 to 65535 (0: any free port)"
        case .unknownHost(let text): "\(text): the host must be an IP address or localhost"
        }
    }
}
