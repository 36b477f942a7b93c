import Foundation

/// A private, headless PipeWire for one test, as a desktop runs it (PULSEAUDIO.md, "PipeWire's PulseAudio server"):
/// `pipewire` with a 48 kHz float32 stereo null sink named `metro` of its own, WirePlumber (which makes `metro` the
/// default sink and links every stream), and `pipewire-pulse`, PipeWire's PulseAudio server, on
/// `DIRECTORY/runtime/pulse/native`. Every process gets the folder's HOME, XDG_RUNTIME_DIR (mode 700) and
/// XDG_CONFIG_HOME, and no session bus. Every wait is bounded (10 s); every process is stopped and the folder removed
/// on deinit.
///
/// Recordings go through a second `pipewire-pulse`, the recorder's, on `DIRECTORY/recorder/pulse/native`. So a test
/// may kill the clients' server (`killPulse`) and start it again (`restartPulse`) while PipeWire, its sink's clock
/// and a recording go on, as a desktop's `systemctl --user restart pipewire-pulse` does; or kill everything (`kill`)
/// and start it all again (`restart`).
public final class PipeWireServer: PulseProtocolServer {
    /// The folder of its HOME, runtime and config directories (and recordings).
    public let directory: String
    /// The clients' socket, as PULSE_SERVER names it: `unix:DIRECTORY/runtime/pulse/native`.
    public let address: String
    private var pipewire: ChildProcess?
    private var wireplumber: ChildProcess?
    private var recorderPulse: ChildProcess?
    private var pulse: ChildProcess?

    /// Writes the configuration, starts PipeWire, WirePlumber and both PulseAudio servers, and waits until `metro` is
    /// the default sink and both servers answer (10 s at most for each step).
    /// - Throws: `ServerError` naming the step that did not finish, or the process that exited.
    public init() throws {
        // Earlier tests may have left gigabytes of dirty pages; write them back now, not during playback.
        sync()
        directory = NSTemporaryDirectory() + "metronome-pw-\(UUID().uuidString.prefix(8))"
        address = "unix:\(directory)/runtime/pulse/native"
        let tools = ["pipewire", "wireplumber", "pipewire-pulse", "pw-metadata", "pw-profiler", "pactl", "parec"].map {
            "/usr/bin/" + $0
        }
        if let missing = tools.first(where: { !FileManager.default.isExecutableFile(atPath: $0) }) {
            throw ServerError.notInstalled(missing)
        }
        do {
            try writeConfiguration()
            try restart()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Kills every process and removes the folder.
    public func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Ends every process with `signal` (SIGTERM: stopped; SIGKILL: crashed): the clients' PulseAudio server, the
    /// recorder's, WirePlumber, then PipeWire. A recording ends with them. The folder stays, for a `restart`.
    public func kill(_ signal: Int32 = SIGTERM) {
        for process in [pulse, recorderPulse, wireplumber, pipewire] {
            PipeWireServer.end(process, signal)
        }
        pulse = nil
        recorderPulse = nil
        wireplumber = nil
        pipewire = nil
    }

    /// Starts PipeWire (with its sink), WirePlumber and both PulseAudio servers (everything must have been killed),
    /// each once the one before is ready.
    /// - Throws: `ServerError` naming the step that did not finish within 10 s, or the process that exited.
    public func restart() throws {
        // A killed PipeWire leaves its socket behind; the wait below is for the new one.
        try? FileManager.default.removeItem(atPath: "\(directory)/runtime/pipewire-0")
        let pipewire = try start("/usr/bin/pipewire")
        self.pipewire = pipewire
        try wait("PipeWire's socket \(directory)/runtime/pipewire-0", [pipewire]) {
            FileManager.default.fileExists(atPath: "\(directory)/runtime/pipewire-0")
        }
        let wireplumber = try start("/usr/bin/wireplumber")
        self.wireplumber = wireplumber
        // WirePlumber has chosen `metro` as the default sink: its policy, which links the streams, is running.
        try wait("WirePlumber to make 'metro' the default sink", [pipewire, wireplumber]) {
            let metadata = try bounded(
                "/usr/bin/pw-metadata", ["-n", "default", "0", "default.audio.sink"], environment: environment)
            return metadata.standardOutput.contains(#"value:'{"name":"metro"}'"#)
        }
        // The recorder's server: its own runtime directory (so its own socket), the same PipeWire.
        var recorderServer = environment
        recorderServer["XDG_RUNTIME_DIR"] = "\(directory)/recorder"
        recorderServer["PIPEWIRE_RUNTIME_DIR"] = "\(directory)/runtime"
        let recorderPulse = try start("/usr/bin/pipewire-pulse", environment: recorderServer)
        self.recorderPulse = recorderPulse
        try wait("the recorder's pipewire-pulse to answer", [pipewire, wireplumber, recorderPulse]) {
            try bounded("/usr/bin/pactl", ["info"], environment: recorderEnvironment).status == 0
        }
        try restartPulse()
    }

    /// Ends the clients' PulseAudio server with `signal`: its clients lose their connection, while PipeWire, its
    /// sink's clock and a recording go on.
    public func killPulse(_ signal: Int32 = SIGTERM) {
        PipeWireServer.end(pulse, signal)
        pulse = nil
    }

    /// Starts the clients' PulseAudio server again (the old one must have been killed) and waits until it answers.
    /// - Throws: `ServerError` when it does not answer within 10 s, or exits.
    public func restartPulse() throws {
        let pulse = try start("/usr/bin/pipewire-pulse")
        self.pulse = pulse
        try wait("pipewire-pulse to answer at \(address)", [pipewire, wireplumber, pulse].compactMap { $0 }) {
            try bounded("/usr/bin/pactl", ["info"], environment: clientEnvironment).status == 0
        }
    }

    /// Runs `pactl` against the clients' server (10 s at most).
    @discardableResult
    public func pactl(_ arguments: [String]) throws -> CommandResult {
        try bounded("/usr/bin/pactl", arguments, environment: clientEnvironment)
    }

    /// None: PipeWire's tests judge its graph's quanta, which the stream's latency chooses; they play at the default
    /// 20 ms, the 256-frame quantum their rules are written for.
    public var testLatencyArguments: [String] { [] }

    /// The environment a client of the clients' server needs.
    public var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = address
        environment["PULSE_COOKIE"] = "\(directory)/cookie"
        return environment
    }

    /// Starts recording `metro`'s monitor through the recorder's server (as `PulseServer.startRecording`), with
    /// PipeWire's profiler (`pw-profiler`, in the folder) over the same span: `Recording.troubledGraphCycles()`.
    public func startRecording() throws -> Recording {
        let name = "profiler-\(UUID().uuidString.prefix(6))"
        let log = "\(directory)/\(name).log"
        // It writes its plot scripts into its working directory when it stops: a folder of its own (the shell only
        // changes into it, then is replaced by the profiler, which gets the signals).
        try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: true)
        let profiler = try ChildProcess(
            "/bin/sh", ["-c", #"cd "$1" && exec /usr/bin/pw-profiler -o "$2""#, "sh", "\(directory)/\(name)", log],
            environment: environment)
        var recording = try Recording.start(in: directory, environment: recorderEnvironment)
        recording.profiler = (profiler, log)
        return recording
    }

    /// Why the server could not start.
    public enum ServerError: Error, CustomStringConvertible {
        /// What did not happen within 10 s, and the folder (whose processes' standard error is in the message).
        case notReady(String, directory: String, standardError: String)
        /// A process that exited while the server started: its name, exit status and standard error.
        case exited(String, status: Int32, standardError: String)
        /// A program the server needs is not installed: its path.
        case notInstalled(String)

        public var description: String {
            switch self {
            case .notReady(let step, let directory, let standardError):
                "PipeWire in \(directory): no \(step) within 10 s; its processes said:\n\(standardError)"
            case .exited(let name, let status, let standardError):
                "PipeWire: \(name) exited with status \(status) while starting:\n\(standardError)"
            case .notInstalled(let path):
                "PipeWire: \(path) is not installed (Debian: pipewire pipewire-pulse wireplumber pipewire-bin "
                    + "pulseaudio-utils; .ci/install-packages installs them)"
            }
        }
    }

    // MARK: - Processes

    /// What every process of the server runs with: the folder's HOME, runtime and config directories, a plain PATH,
    /// and nothing else (no DBUS_SESSION_BUS_ADDRESS: WirePlumber runs without a session bus).
    private var environment: [String: String] {
        [
            "HOME": "\(directory)/home", "XDG_RUNTIME_DIR": "\(directory)/runtime",
            "XDG_CONFIG_HOME": "\(directory)/config", "PATH": "/usr/bin:/bin",
        ]
    }

    /// A client of the recorder's server.
    private var recorderEnvironment: [String: String] {
        var environment = clientEnvironment
        environment["PULSE_SERVER"] = "unix:\(directory)/recorder/pulse/native"
        return environment
    }

    private func start(_ path: String, environment: [String: String]? = nil) throws -> ChildProcess {
        try ChildProcess(path, [], environment: environment ?? self.environment)
    }

    /// Polls `condition` every 20 ms until it holds; throws once `processes` has one that exited, or after 10 s.
    private func wait(_ step: String, _ processes: [ChildProcess], until condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while try !condition() {
            if let exited = processes.first(where: { $0.hasExited }) {
                let result = exited.wait()
                throw ServerError.exited(
                    name(of: exited), status: result.status, standardError: result.standardError)
            }
            guard Date() < deadline else {
                let said = processes.map { "\(name(of: $0)): \($0.errorOutput)" }.joined(separator: "\n")
                throw ServerError.notReady(step, directory: directory, standardError: said)
            }
            usleep(20_000)
        }
    }

    private func name(of process: ChildProcess) -> String {
        if process === pipewire { return "pipewire" }
        if process === wireplumber { return "wireplumber" }
        if process === recorderPulse { return "pipewire-pulse (the recorder's)" }
        return "pipewire-pulse"
    }

    /// Runs a short command, killed after 10 s (then its status is 128 + SIGKILL).
    private func bounded(_ path: String, _ arguments: [String], environment: [String: String]) throws -> CommandResult {
        let process = try ChildProcess(path, arguments, environment: environment)
        let deadline = Date().addingTimeInterval(10)
        while !process.hasExited, Date() < deadline { usleep(5_000) }
        if !process.hasExited { process.send(SIGKILL) }
        return process.wait()
    }

    /// Sends `signal` and waits 5 s at most for the exit, then kills with SIGKILL.
    private static func end(_ process: ChildProcess?, _ signal: Int32) {
        guard let process, !process.hasExited else { return }
        process.send(signal)
        let deadline = Date().addingTimeInterval(5)
        while !process.hasExited, Date() < deadline { usleep(5_000) }
        if !process.hasExited { process.send(SIGKILL) }
        process.wait()
    }

    // MARK: - Configuration

    /// The folders (runtime ones mode 700), the sink in PipeWire's own configuration (so it is there before any
    /// client can connect, and stays when the clients' PulseAudio server goes), and WirePlumber without the three
    /// features that need a session bus (without them off it exits with 70).
    private func writeConfiguration() throws {
        for folder in ["home", "runtime", "recorder", "config/pipewire/pipewire.conf.d"] {
            try FileManager.default.createDirectory(
                atPath: "\(directory)/\(folder)", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        for folder in ["main.lua.d", "bluetooth.lua.d"] {
            try FileManager.default.createDirectory(
                atPath: "\(directory)/config/wireplumber/\(folder)", withIntermediateDirectories: true)
        }
        let files = [
            "pipewire/pipewire.conf.d/50-metro.conf": """
            context.objects = [
                { factory = adapter
                    args = {
                        factory.name = support.null-audio-sink
                        node.name = metro
                        node.description = metro
                        media.class = Audio/Sink
                        audio.format = F32
                        audio.rate = 48000
                        audio.channels = 2
                        audio.position = [ FL FR ]
                        monitor.channel-volumes = true
                    }
                }
            ]

            """,
            "wireplumber/main.lua.d/51-headless.lua": """
            alsa_monitor.properties["alsa.reserve"] = false
            default_access.properties["enable-flatpak-portal"] = false

            """,
            "wireplumber/bluetooth.lua.d/51-headless.lua": "bluez_monitor.enabled = false\n",
        ]
        for (name, text) in files {
            try text.write(toFile: "\(directory)/config/\(name)", atomically: true, encoding: .utf8)
        }
    }
}
