import Foundation

/// A private PulseAudio daemon for one test: its own HOME and runtime directories in a temporary folder, a 48 kHz
/// float32 stereo null sink named `metro` (with rewinds off, so the monitor records exactly what was written), and
/// an anonymous unix socket. Shared memory is off (see PULSEAUDIO.md). Stopped and removed on deinit.
///
/// A test may kill the daemon (`kill`) and start a new one on the same socket (`restart`), or stop it in its tracks
/// with SIGSTOP (`freeze`); the teardown continues and ends it in every case.
public final class PulseServer {
    /// The folder of its HOME, runtime and config directories (and recordings).
    public let directory: String
    /// Its socket, as PULSE_SERVER names it: `unix:DIRECTORY/native`.
    public let address: String
    private var daemon: ChildProcess

    /// Starts a daemon and waits until it answers (10 s at most).
    public init() throws {
        // Earlier tests may have left gigabytes of dirty pages; write them back now, not during playback.
        sync()
        // In-process clients would otherwise write a cookie under the real home.
        setenv("PULSE_COOKIE", NSTemporaryDirectory() + "metronome-test-pulse-cookie", 1)
        directory = NSTemporaryDirectory() + "metronome-pa-\(UUID().uuidString.prefix(8))"
        for folder in ["home", "runtime", "config"] {
            try FileManager.default.createDirectory(
                atPath: "\(directory)/\(folder)", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        address = "unix:\(directory)/native"
        daemon = try PulseServer.startDaemon(directory)
        try waitUntilReady()
    }

    private static func startDaemon(_ directory: String) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/pulseaudio",
            [
                "--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no", "--disable-shm=yes",
                "--log-target=stderr", "--log-level=error",
                "--load=module-null-sink sink_name=metro rate=48000 channels=2 format=float32le norewinds=1",
                "--load=module-native-protocol-unix auth-anonymous=1 socket=\(directory)/native",
            ],
            environment: [
                "HOME": "\(directory)/home", "XDG_RUNTIME_DIR": "\(directory)/runtime",
                "XDG_CONFIG_HOME": "\(directory)/config", "PATH": "/usr/bin:/bin",
            ])
    }

    /// Polls `pactl info` until the daemon answers (10 s at most).
    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? ChildProcess("/usr/bin/pactl", ["info"], environment: clientEnvironment).wait())?.status == 0 {
                return
            }
            usleep(50_000)
        }
        throw ServerError.notReady(directory)
    }

    deinit { stop() }

    /// Kills the daemon (as if the server crashed or was stopped).
    public func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Ends the daemon with `signal` (SIGTERM: stopped; SIGKILL: crashed), keeping the directory for a `restart`.
    public func kill(_ signal: Int32 = SIGTERM) {
        guard !daemon.hasExited else { return }
        daemon.send(SIGCONT)
        daemon.send(signal)
        daemon.wait()
    }

    /// Starts a new daemon on the same socket (the old one must have been killed) and waits until it answers.
    public func restart() throws {
        daemon = try PulseServer.startDaemon(directory)
        try waitUntilReady()
    }

    /// A second socket for clients, `unix:DIRECTORY/client`, served by a protocol module of its own that
    /// `dropClients()` unloads: every client connected through it loses its connection as if the server had died,
    /// while the server, its null sink's clock and a recording through `address` go on. Nil until
    /// `acceptClients()`.
    public private(set) var clientAddress: String?
    private var clientModule: String?

    /// Loads (again) the protocol module of `clientAddress`; returns the address.
    @discardableResult
    public func acceptClients() throws -> String {
        let socket = "\(directory)/client"
        let loaded = try pactl(["load-module", "module-native-protocol-unix", "auth-anonymous=1", "socket=\(socket)"])
        guard loaded.status == 0 else { throw ServerError.notReady(directory) }
        clientModule = loaded.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        clientAddress = "unix:\(socket)"
        return "unix:\(socket)"
    }

    /// Unloads the protocol module of `clientAddress`: its clients lose their connections, and new ones are refused
    /// until `acceptClients()`.
    public func dropClients() throws {
        guard let clientModule else { return }
        try pactl(["unload-module", clientModule])
        self.clientModule = nil
    }

    /// Stops the daemon in its tracks (SIGSTOP): its socket stays open and nothing answers.
    public func freeze() { daemon.send(SIGSTOP) }

    /// Runs `pactl` against this server.
    @discardableResult
    public func pactl(_ arguments: [String]) throws -> CommandResult {
        try ChildProcess("/usr/bin/pactl", arguments, environment: clientEnvironment).wait()
    }

    /// The environment a client of this server needs.
    public var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = address
        environment["PULSE_COOKIE"] = "\(directory)/cookie"
        return environment
    }

    /// The daemon did not answer within 10 s; the associated value is its folder.
    public enum ServerError: Error { case notReady(String) }

    /// Starts recording the null sink's monitor (10 ms latency, float32 stereo 48 kHz) and returns the recorder.
    public func startRecording() throws -> Recording {
        try Recording.start(in: directory, environment: clientEnvironment)
    }
}

extension PulseServer: PulseProtocolServer {}
