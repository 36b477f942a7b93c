import Glibc

/// An IPv4 UDP address: four address bytes and a port.
///
/// Written `HOST:PORT` (`127.0.0.1:7770`, `localhost:9000`) or as liblo writes a return address,
/// `osc.udp://HOST:PORT/`. Host names are resolved once, to their first IPv4 address. IPv6 is not supported.
public struct OSCEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The address bytes in network order (`127.0.0.1` is `[127, 0, 0, 1]`).
    public let address: [UInt8]
    /// The UDP port.
    public let port: UInt16

    /// An endpoint from its address bytes and port.
    /// - Precondition: four address bytes.
    public init(address: [UInt8], port: UInt16) {
        precondition(address.count == 4, "an IPv4 address has four bytes")
        self.address = address
        self.port = port
    }

    /// The loopback address `127.0.0.1` at a port.
    public static func loopback(port: UInt16) -> OSCEndpoint { OSCEndpoint(address: [127, 0, 0, 1], port: port) }

    /// `a.b.c.d:port`.
    public var description: String { address.map(String.init).joined(separator: ".") + ":\(port)" }

    /// Whether the address is in 127.0.0.0/8, reachable only from this machine.
    public var isLoopback: Bool { address[0] == 127 }

    /// Parses `HOST:PORT` or `osc.udp://HOST:PORT/`, resolving a host name. Port 0 asks a socket for any free port.
    /// - Throws: `OSCEndpointError` naming what is wrong.
    public init(parsing text: String) throws(OSCEndpointError) {
        var rest = Substring(text)
        if rest.hasPrefix("osc.udp://") {
            rest = rest.dropFirst("osc.udp://".count)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
        }
        guard let colon = rest.lastIndex(of: ":") else { throw .noPort(text) }
        let host = String(rest[..<colon])
        let portText = rest[rest.index(after: colon)...]
        guard let port = UInt16(portText) else { throw .badPort(text) }
        try self.init(host: host, port: port, text: text)
    }

    /// An endpoint from a host (dotted IPv4 address or name) and a port.
    /// - Throws: `OSCEndpointError.unknownHost` when the host is neither.
    public init(host: String, port: UInt16) throws(OSCEndpointError) {
        try self.init(host: host, port: port, text: host)
    }

    private init(host: String, port: UInt16, text: String) throws(OSCEndpointError) {
        guard !host.isEmpty, !host.contains("\0") else { throw .unknownHost(text) }
        var parsed = in_addr()
        if inet_pton(AF_INET, host, &parsed) == 1 {
            self.init(address: OSCEndpoint.bytes(of: parsed), port: port)
            return
        }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { throw .unknownHost(text) }
        defer { freeaddrinfo(list) }
        guard let socketAddress = first.pointee.ai_addr, first.pointee.ai_family == AF_INET else {
            throw .unknownHost(text)
        }
        let inet = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        self.init(address: OSCEndpoint.bytes(of: inet.sin_addr), port: port)
    }

    /// The C socket address.
    var socketAddress: sockaddr_in {
        var result = sockaddr_in()
        result.sin_family = sa_family_t(AF_INET)
        result.sin_port = port.bigEndian
        result.sin_addr.s_addr =
            (UInt32(address[0]) << 24 | UInt32(address[1]) << 16 | UInt32(address[2]) << 8 | UInt32(address[3]))
            .bigEndian
        return result
    }

    /// An endpoint from a C socket address.
    init(_ socketAddress: sockaddr_in) {
        self.init(
            address: OSCEndpoint.bytes(of: socketAddress.sin_addr), port: UInt16(bigEndian: socketAddress.sin_port))
    }

    private static func bytes(of address: in_addr) -> [UInt8] {
        let value = UInt32(bigEndian: address.s_addr)
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Why an endpoint or a socket could not be made.
public enum OSCEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `:PORT`.
    case noPort(String)
    /// The port is not a number from 1 to 65535.
    case badPort(String)
    /// The host is neither a dotted IPv4 address nor a name that resolves to one.
    case unknownHost(String)
    /// The socket could not be bound (the address is in use, or not this machine's).
    case cannotBind(OSCEndpoint, reason: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .noPort(let text): "\(text): give HOST:PORT, for instance 127.0.0.1:7770"
        case .badPort(let text): "\(text): the port must be a whole number from 0 to 65535 (0: any free port)"
        case .unknownHost(let text): "\(text): not an IPv4 address or a host name that resolves to one"
        case .cannotBind(let endpoint, let reason): "cannot listen on UDP \(endpoint): \(reason)"
        }
    }
}
