import CJack
import Synchronization

/// A JACK client opened on a server and not yet playing: the server's sample rate and period, known before a mixer
/// and a lookahead are made for them, and then the client that plays (`JackOutput.init(… opened:)` takes it over).
///
/// A start used to open a client to ask the rate, another to ask the period and a third to play, all under one name
/// within milliseconds; the question and the playing are now one client. A client nobody takes over is closed when
/// the last reference goes (a refusal after the question: a usage error, a file that does not load).
///
/// Threads: any; the client is handed over once, under a lock.
public final class JackClient: Sendable {
    /// The server's sample rate, in frames per second.
    public let sampleRate: Int
    /// The server's period, in frames.
    public let periodFrames: Int
    /// The server's name (as asked, or JACK_DEFAULT_SERVER, or "default").
    public let serverName: String
    /// The client's name on the server: the one asked for, or JACK's unique variant of it ("metronome-01") when a
    /// client of that name is there already.
    public let name: String
    /// The client until `take()` hands it over (nil after).
    private let handle: Mutex<OpaquePointer?>

    /// Opens a client (never starting a server).
    /// - Parameters:
    ///   - name: the client's name.
    ///   - server: the server's name (nil: JACK_DEFAULT_SERVER, or "default").
    /// - Throws: `JackError.noServer` or `.refused`.
    public init(name: String = "metronome", server: String? = nil) throws(JackError) {
        var status = jack_status_t(0)
        let serverName = server ?? JackOutput.defaultServerName
        guard let client = metronome_jack_open(name, server, &status) else {
            if status.rawValue & JackServerFailed.rawValue != 0 || status.rawValue & JackServerError.rawValue != 0 {
                throw .noServer(server: serverName)
            }
            throw .refused(server: serverName, status: status.rawValue)
        }
        self.serverName = serverName
        self.name = String(cString: jack_get_client_name(client))
        sampleRate = Int(jack_get_sample_rate(client))
        periodFrames = Int(jack_get_buffer_size(client))
        handle = Mutex(client)
    }

    /// The client, once: nil when it was taken already.
    func take() -> OpaquePointer? {
        handle.withLock { client in
            defer { client = nil }
            return client
        }
    }

    deinit {
        if let client = take() { jack_client_close(client) }
    }
}
