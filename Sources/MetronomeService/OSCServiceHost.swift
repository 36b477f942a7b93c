import MetronomeLive
import MetronomeOSC

/// A service listening on a UDP socket: the socket bound, the service over the session, the server's thread
/// receiving and answering. What `metronome serve` runs, and what a program embedding the service needs.
///
/// Threads: create and `stop` from a control thread; the service handles datagrams on the server's thread.
public final class OSCServiceHost: Sendable {
    /// The service over the session (its core and both address spaces).
    public let service: OSCService
    /// The receiving thread.
    public let server: OSCServer
    /// Where it listens (the port the system chose for port 0).
    public let endpoint: OSCEndpoint

    /// Binds the socket, creates the service and starts receiving.
    /// - Parameters:
    ///   - endpoint: where to listen (a loopback address unless the user says otherwise: OSC has no
    ///     authentication).
    ///   - session: the session the service drives.
    ///   - settings: the notes' instrument and voicing, and where patterns come from.
    /// - Throws: `OSCServiceHostError.bind` when the address cannot be bound (a port in use), `.session` when the
    ///   session's rate does not suit the service.
    public init(endpoint: OSCEndpoint, session: Session, settings: ServiceSettings) throws(OSCServiceHostError) {
        let socket: OSCSocket
        do { socket = try OSCSocket(binding: endpoint) } catch { throw .bind(error) }
        do {
            service = try OSCService(session: session, settings: settings) { packet, endpoint in
                socket.send(packet, to: endpoint)
            }
        } catch {
            throw .session(error)
        }
        self.endpoint = socket.endpoint
        server = OSCServer(socket: socket)
        let service = self.service
        server.start { datagram in
            service.handle(datagram.bytes, truncated: datagram.truncated, from: datagram.sender)
        }
    }

    /// Stops receiving; the socket closes with the server.
    public func stop() { server.stop() }
}

/// Why a service could not start listening.
public enum OSCServiceHostError: Error, Sendable, CustomStringConvertible {
    /// The address could not be bound.
    case bind(OSCEndpointError)
    /// The session does not suit the service.
    case session(SessionError)

    /// The reason.
    public var description: String {
        switch self {
        case .bind(let error): error.description
        case .session(let error): error.description
        }
    }
}
