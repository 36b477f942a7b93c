import Glibc

/// A bound UDP socket that receives and sends OSC datagrams (IPv4).
///
/// Threads: `receive` from one thread at a time; `send` from any thread (a `sendto` per datagram); `close` once,
/// after the receiving thread has stopped.
public final class OSCSocket: @unchecked Sendable {
    // @unchecked: the only state is the descriptor, set once in init; `sendto` and `recvfrom` on one descriptor are
    // safe from several threads, and the receive buffer is touched only by the one receiving thread.

    /// The address the socket is bound to (with the port the system chose when 0 was asked for).
    public let endpoint: OSCEndpoint
    private let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer

    /// Binds a UDP socket.
    /// - Parameter endpoint: the local address and port (port 0: any free port).
    /// - Throws: `OSCEndpointError.cannotBind` with the system's reason.
    public init(binding endpoint: OSCEndpoint) throws(OSCEndpointError) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotBind(endpoint, reason: String(cString: strerror(errno))) }
        var address = endpoint.socketAddress
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .cannotBind(endpoint, reason: reason)
        }
        // A deep receive queue rides out bursts (10,000 messages a second) while the handler is busy.
        var size: Int32 = 4 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.endpoint = OSCEndpoint(actual)
        buffer = .allocate(byteCount: OSCPacket.maximumSize + 1, alignment: 8)
    }

    deinit {
        Glibc.close(descriptor)
        buffer.deallocate()
    }

    /// One datagram received.
    public struct Datagram: Sendable {
        /// Its bytes (at most `OSCPacket.maximumSize`; a longer one is cut there and `truncated` is set).
        public var bytes: [UInt8]
        /// Whether it was longer than `OSCPacket.maximumSize`.
        public var truncated: Bool
        /// Who sent it.
        public var sender: OSCEndpoint
    }

    /// Waits up to `timeoutMilliseconds` for a datagram.
    /// - Returns: the datagram, or nil when none came in time.
    public func receive(timeoutMilliseconds: Int32) -> Datagram? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, &length)
            }
        }
        guard count >= 0 else { return nil }
        let kept = min(count, OSCPacket.maximumSize)
        return Datagram(
            bytes: Array(UnsafeRawBufferPointer(rebasing: buffer[0..<kept])), truncated: count > kept,
            sender: OSCEndpoint(from))
    }

    /// Sends one datagram.
    /// - Returns: whether the system took it.
    @discardableResult
    public func send(_ bytes: [UInt8], to endpoint: OSCEndpoint) -> Bool {
        var address = endpoint.socketAddress
        let sent = bytes.withUnsafeBytes { data in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, data.baseAddress, data.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return sent == bytes.count
    }

    /// Encodes and sends a packet.
    /// - Returns: whether it encoded and the system took it.
    @discardableResult
    public func send(_ packet: OSCPacket, to endpoint: OSCEndpoint) -> Bool {
        guard let bytes = try? packet.encoded() else { return false }
        return send(bytes, to: endpoint)
    }
}
