import Dispatch
import MetronomeOSC
import Synchronization

/// Receives datagrams on a UDP socket on a thread of its own and hands each to a service; replies and
/// notifications go out through the same socket (so a client sees them come from the address it sent to).
///
/// Threads: `start` and `stop` from one control thread.
public final class OSCServer: Sendable {
    /// The socket (its endpoint is where the server listens).
    public let socket: OSCSocket
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// A server on a bound socket.
    public init(socket: OSCSocket) {
        self.socket = socket
    }

    /// Starts receiving: every datagram goes to `handler` on the server's thread, in order of arrival.
    public func start(_ handler: @escaping @Sendable (OSCSocket.Datagram) -> Void) {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let thread = DispatchQueue(label: "metronome.osc.receive", qos: .userInitiated)
        thread.async { [self] in
            while running.load(ordering: .acquiring) {
                if let datagram = socket.receive(timeoutMilliseconds: 50) { handler(datagram) }
            }
            finished.signal()
        }
    }

    /// Stops receiving and waits (at most 50 ms and the handler's last call) for the thread to end.
    public func stop() {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged
        else { return }
        finished.wait()
    }
}
