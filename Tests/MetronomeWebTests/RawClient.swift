import Glibc

/// A TCP client written against the socket calls, so the tests speak to the server byte for byte (a browser or an HTTP
/// library would fix up what the tests mean to send wrong). Every read waits at most 5 s.
final class RawClient {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure("connect: errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Sends bytes.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure("send: errno \(errno)") }
            sent += count
        }
    }

    /// Sends text.
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads what arrives until the server closes (or 5 s pass).
    func readAll() -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return result }
            result += buffer[0..<count]
        }
    }

    /// Reads until `terminator` has arrived; what came, or nil when the connection closed first.
    func read(until terminator: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        while recv(descriptor, &byte, 1, 0) == 1 {
            result.append(byte)
            if result.count >= terminator.count, Array(result.suffix(terminator.count)) == terminator { return result }
        }
        return nil
    }

    /// Reads exactly `count` bytes, or nil when the connection closed first.
    func read(count: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        while result.count < count, recv(descriptor, &byte, 1, 0) == 1 { result.append(byte) }
        return result.count == count ? result : nil
    }

    /// One request, the whole response as text (the server closes after each).
    static func request(port: Int, _ text: String) throws -> String {
        let client = try RawClient(port: port)
        try client.send(text)
        return String(decoding: client.readAll(), as: UTF8.self)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// A WebSocket over a raw client: the handshake, masked frames out, frames in.
final class RawWebSocket {
    let client: RawClient

    /// Upgrades a connection; `nil` with the response head when the server refuses.
    init(port: Int, path: String = "/ws", host: String? = nil, origin: String? = nil) throws {
        client = try RawClient(port: port)
        let host = host ?? "127.0.0.1:\(port)"
        try client.send(
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Origin: \(origin ?? "http://\(host)")\r\n\r\n")
        let head = client.read(until: Array("\r\n\r\n".utf8)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard head.hasPrefix("HTTP/1.1 101 ") else { throw Refused(head: head) }
    }

    struct Refused: Error { var head: String }

    /// Sends one frame: by default final, masked, with no reserved bit, as a browser sends it.
    func send(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, reserved: UInt8 = 0) throws {
        try client.send(RawWebSocket.frame(opcode: opcode, payload, fin: fin, masked: masked, reserved: reserved))
    }

    /// The bytes of one client frame.
    static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, reserved: UInt8 = 0)
        -> [UInt8]
    {
        let mark: UInt8 = masked ? 0x80 : 0
        var frame: [UInt8] = [(fin ? 0x80 : 0) | reserved << 4 | opcode]
        if payload.count < 126 {
            frame.append(mark | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [mark | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(mark | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        return frame + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// Sends a text frame.
    func send(_ text: String) throws { try send(opcode: 1, Array(text.utf8)) }

    /// The next frame (the server's are not masked), or nil when the connection closed.
    func receive() -> (opcode: UInt8, payload: [UInt8])? {
        guard let head = client.read(count: 2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let bytes = client.read(count: 2) else { return nil }
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            guard let bytes = client.read(count: 8) else { return nil }
            length = bytes.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = client.read(count: length) else { return nil }
        return (head[0] & 0x0F, payload)
    }

    /// The next text frame's text, skipping beats (an idle session sends none, a playing one many).
    func receiveText(skippingBeats: Bool = true) -> String? {
        while let frame = receive() {
            guard frame.opcode == 1 else { return nil }
            let text = String(decoding: frame.payload, as: UTF8.self)
            if skippingBeats, text.hasPrefix("{\"type\":\"beat\"") { continue }
            return text
        }
        return nil
    }
}
