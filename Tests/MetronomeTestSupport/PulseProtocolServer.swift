/// A sound server that clients reach with PulseAudio's protocol, with a null sink named `metro` whose monitor a test
/// records: a PulseAudio daemon (`PulseServer`) or PipeWire's PulseAudio server (`PipeWireServer`). Helpers that play
/// live and compare a recording take either, so both lanes run the same checks.
public protocol PulseProtocolServer: AnyObject {
    /// The clients' socket, as PULSE_SERVER names it (`unix:PATH`).
    var address: String { get }
    /// The environment a client of this server needs (its PULSE_SERVER and PULSE_COOKIE).
    var clientEnvironment: [String: String] { get }
    /// Starts recording the null sink's monitor.
    /// - Returns: the running recorder.
    /// - Throws: when the recorder cannot start.
    func startRecording() throws -> Recording
    /// Runs `pactl` against the clients' socket.
    /// - Parameter arguments: pactl's arguments.
    /// - Returns: its exit status and output.
    /// - Throws: when pactl cannot start.
    @discardableResult
    func pactl(_ arguments: [String]) throws -> CommandResult
    /// The `--latency` a live run of ours that a test judges by its frames, not its latency, asks this server for
    /// (`withTestLatency`): empty for the default.
    var testLatencyArguments: [String] { get }
}

extension PulseProtocolServer {
    /// `arguments` with this server's `testLatencyArguments` added after them, unless they ask for a latency
    /// themselves.
    public func withTestLatency(_ arguments: [String]) -> [String] {
        arguments.contains("--latency") ? arguments : arguments + testLatencyArguments
    }
}
