
/// Why the sound server could not be used. Each case names the server that was tried, so the command line can say
/// where it looked.
public enum PulseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What a wait that ran out of time was waiting for.
    public enum Wait: String, Sendable {
        /// The context to become ready (the server's answer to a connection).
        case connection = "answer"
        /// The playback stream to become ready.
        case stream = "accept the playback stream"
    }

    /// The context never became ready: no server, refused, or no access.
    case cannotConnect(server: String, reason: String)
    /// The server did not answer in time (it accepted the connection and then said nothing, or it is stopped).
    case timedOut(server: String, waitingFor: Wait, after: Duration)
    /// The caller's cancellation check said stop while waiting on the server.
    case cancelled(server: String)
    /// The playback stream could not be created or connected (for instance an unknown sink).
    case streamFailed(server: String, reason: String)
    /// The server went away while playing.
    case connectionLost(server: String)
    /// The sink the stream played to went away while playing (unloaded, unplugged), and the server had no other sink
    /// to move it to; the server itself is still there.
    case sinkLost(server: String, sink: String)
    /// The server has no sink of that name.
    case noSuchSink(server: String, sink: String)

    public var description: String {
        switch self {
        case .cannotConnect(let server, let reason): "cannot connect to PulseAudio at \(server): \(reason)"
        case .timedOut(let server, let wait, let after):
            "PulseAudio at \(server) did not \(wait.rawValue) within \(PulseError.seconds(after))"
        case .cancelled(let server): "interrupted while waiting for PulseAudio at \(server)"
        case .streamFailed(let server, let reason): "PulseAudio at \(server) refused the playback stream: \(reason)"
        case .connectionLost(let server): "lost the connection to PulseAudio at \(server)"
        case .sinkLost(let server, let sink): "the sink '\(sink)' of PulseAudio at \(server) went away"
        case .noSuchSink(let server, let sink):
            "PulseAudio at \(server) has no sink named '\(sink)'; 'metronome devices' lists its sinks"
        }
    }

    /// "5 s", "0.5 s": a duration as a person reads it, to a millisecond.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Int64((duration.inSeconds * 1000).rounded())
        let whole = milliseconds / 1000
        let rest = milliseconds % 1000
        guard rest != 0 else { return "\(whole) s" }
        var fraction = String(rest)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction) s"
    }
}
