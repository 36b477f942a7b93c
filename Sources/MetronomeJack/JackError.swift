/// Why a JACK client could not be opened or stopped playing. Every description is one line for the command line.
public enum JackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No server of that name is running (JACK is never started for us).
    case noServer(server: String)
    /// The server refused the client (JACK's status bits).
    case refused(server: String, status: UInt32)
    /// The server runs at another rate than the mixer's.
    case rateMismatch(server: String, serverRate: Int, mixerRate: Int)
    /// A port of ours could not be registered.
    case portFailed(server: String, port: String)
    /// The server would not activate the client.
    case activateFailed(server: String)
    /// A port to connect to does not exist.
    case noSuchPort(server: String, port: String)
    /// A connection the server refused.
    case connectFailed(server: String, from: String, to: String)
    /// The server shut down or dropped the client while playing.
    case lost(server: String, reason: String)
    /// The server would not make the client timebase master.
    case timebaseRefused(server: String)

    /// One line: what happened and what to do.
    public var description: String {
        switch self {
        case .noServer(let server):
            return "no JACK server '\(server)' is running; start one (jackd -d alsa, or jackd -d dummy -r 48000 "
                + "-p 256 without a sound card), or play through PulseAudio (--driver pulse)"
        case .refused(let server, let status):
            return "the JACK server '\(server)' refused the client (status 0x\(String(status, radix: 16)))"
        case .rateMismatch(let server, let serverRate, let mixerRate):
            return "the JACK server '\(server)' runs at \(serverRate) Hz, not the \(mixerRate) Hz asked for"
        case .portFailed(let server, let port):
            return "the JACK server '\(server)' would not register the port \(port)"
        case .activateFailed(let server):
            return "the JACK server '\(server)' would not activate the client"
        case .noSuchPort(let server, let port):
            return "the JACK server '\(server)' has no port '\(port)' (jack_lsp lists them)"
        case .connectFailed(let server, let from, let to):
            return "the JACK server '\(server)' would not connect \(from) to \(to)"
        case .lost(let server, let reason):
            return "the JACK server '\(server)' went away: \(reason)"
        case .timebaseRefused(let server):
            return "the JACK server '\(server)' would not make the client timebase master"
        }
    }
}
