/// Why the sound server could not be used. Each case names the server that was tried, so the command line can say
/// where it looked.
public enum PulseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The context never became ready: no server, refused, or no access.
    case cannotConnect(server: String, reason: String)
    /// The playback stream could not be created or connected (for instance an unknown sink).
    case streamFailed(server: String, reason: String)
    /// The server went away while playing.
    case connectionLost(server: String)
    /// The server has no sink of that name.
    case noSuchSink(server: String, sink: String)

    public var description: String {
        switch self {
        case .cannotConnect(let server, let reason): "cannot connect to PulseAudio at \(server): \(reason)"
        case .streamFailed(let server, let reason): "PulseAudio at \(server) refused the playback stream: \(reason)"
        case .connectionLost(let server): "lost the connection to PulseAudio at \(server)"
        case .noSuchSink(let server, let sink):
            "PulseAudio at \(server) has no sink named '\(sink)'; 'metronome devices' lists its sinks"
        }
    }
}
