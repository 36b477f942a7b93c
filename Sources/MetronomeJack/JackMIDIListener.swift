import CJack
import Glibc
import MetronomeEngine
import MetronomeModel

/// A JACK client with one MIDI input port (`midi_in`) and no audio: what `metronome clock` listens with. Every MIDI
/// clock, Start, Continue, Stop and Song Position Pointer arriving is pushed into `inbox` with the server's frame it
/// arrived on (the cycle's first frame plus its offset in the period); anything else is left out.
///
/// The process callback is real-time safe: it reads the port's events and pushes into a preallocated ring (no
/// allocation, lock, log or Foundation call); a message that finds the ring full is counted by the inbox.
///
/// Threads: `init`, `connect(from:)` and `close()` on a control thread; the process callback on JACK's.
public final class JackMIDIListener: @unchecked Sendable {
    // @unchecked: `client` and `port` are written in `init` and `close()` (control thread, after deactivation) and
    // read by the process callback while the client is active; the inbox is a single-producer ring.

    /// Where the messages go, with the server's frame they arrived on.
    public let inbox: MIDIInbox
    /// The server's sample rate, in frames per second.
    public let sampleRate: Int
    /// The port's full name (`metronome:midi_in`).
    public let portName: String
    /// The server's name.
    public let serverName: String
    private var client: OpaquePointer?
    private var port: OpaquePointer?

    /// Opens a client with one MIDI input port and activates it.
    /// - Parameters:
    ///   - name: the client's name.
    ///   - server: the server's name (nil: JACK_DEFAULT_SERVER, or "default").
    ///   - inbox: where the messages go.
    /// - Throws: `JackError`: no server, refused, the port refused, activation refused.
    public init(name: String = "metronome", server: String? = nil, inbox: MIDIInbox = MIDIInbox(capacity: 8192))
        throws(JackError)
    {
        self.inbox = inbox
        let opened = try JackClient(name: name, server: server)
        guard let client = opened.take() else { throw .refused(server: opened.serverName, status: 0) }
        self.client = client
        sampleRate = opened.sampleRate
        serverName = opened.serverName
        portName = "\(opened.name):midi_in"
        guard
            let port = jack_port_register(
                client, "midi_in", metronome_jack_midi_type(), UInt(JackPortIsInput.rawValue), 0)
        else {
            jack_client_close(client)
            self.client = nil
            throw .portFailed(server: opened.serverName, port: "midi_in")
        }
        self.port = port
        jack_set_process_callback(client, Self.processCallback, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else {
            jack_client_close(client)
            self.client = nil
            throw .activateFailed(server: opened.serverName)
        }
    }

    deinit { close() }

    /// Connects a MIDI output port (another client's) to ours.
    /// - Throws: `JackError.noSuchPort` when the port is not there, `.connectFailed` when JACK refuses.
    public func connect(from source: String) throws(JackError) {
        guard let client else { return }
        guard jack_port_by_name(client, source) != nil else { throw .noSuchPort(server: serverName, port: source) }
        let status = jack_connect(client, source, portName)
        guard status == 0 || status == EEXIST else {
            throw .connectFailed(server: serverName, from: source, to: portName)
        }
    }

    /// The ports connected to ours now. Control thread.
    public var connections: [String] {
        guard let port, let names = jack_port_get_connections(port) else { return [] }
        defer { jack_free(names) }
        var result: [String] = []
        var index = 0
        while let name = names[index] {
            result.append(String(cString: name))
            index += 1
        }
        return result
    }

    /// The server's frame now (an estimate between cycles, `jack_frame_time`); 0 once closed. Control thread.
    public var frameNow: SampleTime {
        guard let client else { return 0 }
        return SampleTime(jack_frame_time(client))
    }

    /// Deactivates and closes the client (once).
    public func close() {
        guard let client else { return }
        jack_deactivate(client)
        jack_client_close(client)
        self.client = nil
        port = nil
    }

    private static let processCallback: JackProcessCallback = { frames, context in
        guard let context else { return 0 }
        Unmanaged<JackMIDIListener>.fromOpaque(context).takeUnretainedValue().process(Int(frames))
        return 0
    }

    /// Pushes the period's clock and song transport messages. Real-time path.
    private func process(_ frameCount: Int) {
        guard let client, let port, let buffer = jack_port_get_buffer(port, jack_nframes_t(frameCount)) else { return }
        let start = SampleTime(jack_last_frame_time(client))
        var event = jack_midi_event_t()
        for index in 0..<jack_midi_get_event_count(buffer) {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 1, let bytes = event.buffer else {
                continue
            }
            let frame = start + SampleTime(event.time)
            switch bytes[0] {
            case 0xF8, 0xFA, 0xFB, 0xFC: inbox.push(MIDIMessage(bytes[0]), at: frame)
            case 0xF2 where event.size >= 3: inbox.push(MIDIMessage(0xF2, bytes[1] & 0x7F, bytes[2] & 0x7F), at: frame)
            default: continue
            }
        }
    }
}
