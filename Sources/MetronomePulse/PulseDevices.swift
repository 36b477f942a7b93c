import CPulseAudio
import Glibc

/// A PulseAudio sink (an output device).
public struct PulseSink: Sendable, Hashable {
    /// The name `--device` takes.
    public var name: String
    /// What the server calls it for people.
    public var description: String
    /// Whether it is the server's default sink.
    public var isDefault: Bool
}

/// Lists a server's sinks.
public enum PulseDevices {
    /// The sinks of a server, default first, then by name.
    /// - Parameters:
    ///   - server: address, or nil for PULSE_SERVER or the default server.
    ///   - timeout: how long the server may take to answer the connection, and each of the two questions.
    ///   - isCancelled: polled at least every 10 ms while waiting for the server to answer: true gives up at once.
    /// - Throws: `PulseError.cannotConnect`, `.timedOut`, `.cancelled` or `.connectionLost`.
    public static func sinks(
        server: String? = nil, timeout: Duration = .seconds(5), isCancelled: () -> Bool = { false }
    ) throws(PulseError) -> [PulseSink] {
        let connection = try PulseConnection(
            server: server, name: "metronome devices", timeout: timeout, isCancelled: isCancelled)
        final class Collector {
            let connection: PulseConnection
            var sinks: [PulseSink] = []
            var defaultName = ""
            init(_ connection: PulseConnection) { self.connection = connection }
        }
        let collector = Collector(connection)
        let userData = Unmanaged.passUnretained(collector).toOpaque()
        let answered = connection.withLock {
            let server = connection.complete(
                pa_context_get_server_info(
                    connection.context,
                    { _, info, userData in
                        let collector = Unmanaged<Collector>.fromOpaque(userData!).takeUnretainedValue()
                        if let name = info?.pointee.default_sink_name { collector.defaultName = String(cString: name) }
                        pa_threaded_mainloop_signal(collector.connection.mainloop, 0)
                    }, userData), timeout: timeout)
            guard server else { return false }
            return connection.complete(
                pa_context_get_sink_info_list(
                    connection.context,
                    { _, info, endOfList, userData in
                        let collector = Unmanaged<Collector>.fromOpaque(userData!).takeUnretainedValue()
                        if endOfList == 0, let info {
                            collector.sinks.append(
                                PulseSink(
                                    name: String(cString: info.pointee.name),
                                    description: info.pointee.description.map { String(cString: $0) } ?? "",
                                    isDefault: false))
                        }
                        pa_threaded_mainloop_signal(collector.connection.mainloop, 0)
                    }, userData), timeout: timeout)
        }
        if connection.isLost { throw .connectionLost(server: connection.serverDescription) }
        if !answered { throw .timedOut(server: connection.serverDescription, waitingFor: .connection, after: timeout) }
        return collector.sinks
            .map { PulseSink(name: $0.name, description: $0.description, isDefault: $0.name == collector.defaultName) }
            .sorted { ($0.isDefault ? 0 : 1, $0.name) < ($1.isDefault ? 0 : 1, $1.name) }
    }
}
