import Foundation
import MetronomeFiles

/// A private JACK server for one test: `jackd -n NAME -R -d dummy -r RATE -p PERIOD`, a name of its own (clients
/// reach it through `server` or `JACK_DEFAULT_SERVER=name`), real-time scheduling (root in CI; without it the dummy
/// backend xruns), and the dummy backend's `system:playback_1/2` and `system:capture_1/2` ports. Stopped on deinit.
public final class JackServer {
    /// The server's name.
    public let name: String
    /// Its sample rate and period.
    public let rate: Int
    public let period: Int
    private var daemon: ChildProcess?

    /// Starts a server and waits until `jack_lsp` reaches it (10 s at most).
    ///
    /// Every test server of a test process has the same name, `metronome-test-PID`, one at a time (the JACK tests
    /// run serially): JACK2 keeps its servers in a registry of 8 in shared memory, and a server killed (as some tests
    /// do) never leaves it; only a server of the same name takes a dead one's place, and one stopped at the end frees
    /// it. The process id keeps test runs of other checkouts on the same machine off this process's server (two
    /// runs on one name were seen to join each other's server and record each other's clients). Before the first
    /// start, with no jackd running on the machine, a registry that killed servers of other names filled is removed.
    public init(rate: Int = 48_000, period: Int = 256) throws {
        name = "metronome-test-\(getpid())"
        self.rate = rate
        self.period = period
        _ = Self.clearedStaleRegistry
        try start()
    }

    /// Removes JACK2's server registry (and our test servers' files) when no jackd runs on the machine; once, before
    /// this process's first server (libjack in the process maps the registry it first finds, and keeps it).
    private static let clearedStaleRegistry: Bool = {
        let running = (try? ChildProcess("/usr/bin/pgrep", ["-x", "jackd"]).wait())?.status == 0
        guard !running else { return false }
        let shm = "/dev/shm"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? []
        for name in names where name == "jack-shm-registry" || name.contains("metronome-test") {
            unlink("\(shm)/\(name)")
        }
        return true
    }()

    deinit { stop() }

    /// The environment of a client of this server: the test's own, with JACK_DEFAULT_SERVER set.
    public var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = name
        environment["JACK_NO_START_SERVER"] = "1"
        return environment
    }

    /// Starts (or, after `kill`, starts again) the daemon under the same name.
    public func start() throws {
        daemon = try ChildProcess(
            "/usr/bin/jackd", ["-n", name, "-R", "-d", "dummy", "-r", String(rate), "-p", String(period)],
            environment: clientEnvironment)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let listing = try? ChildProcess("/usr/bin/jack_lsp", ["-s", name], environment: clientEnvironment).wait()
            if listing?.status == 0, listing?.standardOutput.contains("system:playback_1") == true { return }
            usleep(50_000)
        }
        throw JackServerError.notReady(name)
    }

    /// The xruns the server's log reports so far: its own cycles that started late (the dummy driver's
    /// "JackTimedDriver::Process XRun"), and, by client, cycles a client had not finished ("JackEngine::XRun: client
    /// = NAME was not finished" or "client NAME finished after current callback").
    public var xrunLog: XrunLog {
        var log = XrunLog()
        let text = (daemon?.output ?? "") + (daemon?.errorOutput ?? "")
        for line in text.split(separator: "\n") {
            if line.hasPrefix("JackTimedDriver::Process XRun") {
                log.driverLate += 1
            } else if line.hasPrefix("JackEngine::XRun: client") {
                let words = line.dropFirst("JackEngine::XRun: client".count).split(separator: " ")
                guard let name = words.first(where: { $0 != "=" }) else { continue }
                log.clientsLate[String(name), default: 0] += 1
            }
        }
        return log
    }

    /// The late cycles the server's log reports so far, its own and its clients' together.
    public var lateCycles: Int { xrunLog.lateCycles }

    /// The cause `firstRunWithoutUnderruns` prints when it repeats a run for `lateCyclesExplaining`.
    public static let recordingCause = "late cycle(s) in the JACK server's log explaining intervals off"

    /// For `firstRunWithoutUnderruns`: the late cycles that explain a recording whose intervals (`gaps`, a list per
    /// recorded channel) are not all `interval`, or 0 — a run on its frames, or off in a way they cannot explain, is
    /// not repeated (the caller's checks then pass or fail it).
    ///
    /// A recorder such as jack_capture writes the cycles it is called for one after another: a cycle the server ran
    /// without calling it leaves a period out of its file (an interval a period short); one the server ran without
    /// calling the player (`alsoMissed`, the player's own count, as `JackOutput.missedCycleCount`) moves every click
    /// after it a period later. So each interval off is a whole number of intervals (one, or more where a missed cycle
    /// took a click's start) off by at most a period per late cycle, in all, in each channel. Prints the intervals off
    /// and the log.
    public func lateCyclesExplaining(_ gaps: [[Int]], every interval: Int, alsoMissed: Int = 0) -> Int {
        let off = gaps.filter { !$0.allSatisfy { $0 == interval } }
        guard !off.isEmpty else { return 0 }
        let late = lateCycles + alsoMissed
        // Each channel on its own: a cycle a recorder missed leaves a period out of every channel it records.
        let explained = late > 0 && off.allSatisfy { channel in
            let moved = channel.reduce(0) { moved, gap in
                moved + abs(gap - max(1, Int((Double(gap) / Double(interval)).rounded())) * interval)
            }
            return moved <= late * period
        }
        print(
            "intervals off on server \(name) (period \(period)): \(off); its log: \(xrunLog); cycles the player "
                + "missed: \(alsoMissed); explained: \(explained)")
        return explained ? late : 0
    }

    /// What the server's log says of xruns.
    public struct XrunLog: Equatable, CustomStringConvertible {
        /// The server's own cycles that started late.
        public var driverLate = 0
        /// Cycles each client (by name) had not finished in time.
        public var clientsLate: [String: Int] = [:]

        /// The late cycles of the server and its clients together.
        public var lateCycles: Int { driverLate + clientsLate.values.reduce(0, +) }

        public var description: String {
            let clients = clientsLate.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return "driver late \(driverLate), clients late: "
                + (clients.isEmpty ? "none" : clients.joined(separator: ", "))
        }
    }

    /// Kills the daemon at once (SIGKILL): its clients lose it as they would a crashed server.
    public func kill() {
        daemon?.send(SIGKILL)
        _ = daemon?.wait()
        daemon = nil
    }

    /// Stops the daemon (SIGTERM) and waits for it.
    public func stop() {
        daemon?.send(SIGTERM)
        _ = daemon?.wait()
        daemon = nil
    }

    /// Records `ports` (one channel each) with jack_capture for `settle + seconds`, as 32-bit float, and returns the
    /// last `seconds`: jack_capture joining the graph (a new client, its connections) can cost the dummy backend a
    /// cycle at small periods, so the first moments are left out.
    /// - Returns: one array of samples per port.
    public func record(_ ports: [String], seconds: Double, settle: Double = 0.7) throws -> [[Float]] {
        let path = NSTemporaryDirectory() + "metronome-jack-\(UUID().uuidString.prefix(8)).wav"
        defer { unlink(path) }
        let result = try startRecording(ports, seconds: settle + seconds, to: path).wait()
        guard result.status == 0 else { throw JackServerError.recordingFailed(result.standardError) }
        let skipped = Int(settle * Double(rate))
        return try AudioFileReader.read(path: path).channels.map { Array($0.dropFirst(skipped)) }
    }

    /// Starts jack_capture on `ports` for `seconds` into `path` (32-bit float WAV); the caller waits for it.
    public func startRecording(_ ports: [String], seconds: Double, to path: String) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/jack_capture",
            ports.flatMap { ["--port", $0] } + [
                // `-d`: jack_capture 0.9.73 refuses the long --duration. Its default sample format is 32-bit float.
                "--channels", String(ports.count), "-d", String(seconds), "--format", "wav", "--no-stdin",
                "--disable-console", path,
            ],
            environment: clientEnvironment)
    }

    public enum JackServerError: Error {
        case notReady(String)
        case recordingFailed(String)
    }
}
