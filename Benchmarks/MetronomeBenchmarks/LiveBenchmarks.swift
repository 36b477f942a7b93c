import Glibc
import MetronomeFiles

/// Live playback figures, measured against a private PulseAudio daemon (null sink, as the tests use).
enum LiveBenchmarks {
    struct Report {
        var cpuPercent: Double
        var peakResidentMegabytes: Double
        var firstWriteMilliseconds: Double
        var firstAudibleMilliseconds: Double
        var soak: [(latency: Int, seconds: Int, underruns: Int, late: Int)]
    }

    /// Starts the daemon, runs the measurements, stops the daemon.
    static func run(metronome: String, scratch: String, soakSeconds: Int, latencies: [Int]) -> Report? {
        guard let server = PrivateServer(directory: scratch + "/pulse") else { return nil }
        defer { server.stop() }
        let environment = server.environment

        // Steady state: 30 s of `metronome --bpm 120`, then Ctrl-C.
        let log = scratch + "/steady.log"
        let steady = Spawned(
            metronome, ["--bpm", "120", "--quiet", "--verbose"], environment: environment, errorFile: log)
        usleep(30_000_000)
        steady.signal(SIGINT)
        let cost = steady.finish()
        let report = read(log)
        let firstWrite = Double(value(after: "first audio written at monotonic ", in: report) ?? 0) / 1e9
        let latency = Double(value(after: "measured latency: ", in: report) ?? 0)
        let firstWriteMilliseconds = (firstWrite - steady.started) * 1000

        // Soak under load at each latency.
        var soak: [(Int, Int, Int, Int)] = []
        for milliseconds in latencies {
            let stress = Spawned("stress-ng", ["--cpu", "2", "--timeout", "\(soakSeconds + 5)s", "--quiet"])
            usleep(1_000_000)
            let soakLog = scratch + "/soak-\(milliseconds).log"
            let player = Spawned(
                metronome,
                [
                    "--bpm", "120", "--duration", String(soakSeconds), "--latency", String(milliseconds), "--quiet",
                    "--verbose",
                ],
                environment: environment, errorFile: soakLog)
            _ = player.finish()
            stress.signal(SIGTERM)
            _ = stress.finish()
            let text = read(soakLog)
            soak.append(
                (
                    milliseconds, soakSeconds, value(after: "underruns reported by the server: ", in: text) ?? -1,
                    value(after: "late events: ", in: text) ?? -1
                ))
        }
        return Report(
            cpuPercent: cost.cpuSeconds / cost.wallSeconds * 100,
            peakResidentMegabytes: Double(cost.peakResidentKilobytes) / 1024,
            firstWriteMilliseconds: firstWriteMilliseconds,
            firstAudibleMilliseconds: firstWriteMilliseconds + latency,
            soak: soak)
    }

    static func read(_ path: String) -> String { (try? TextFile.read(path: path)) ?? "" }

    /// The leading integer after a label in a --verbose report (decimals are cut).
    static func value(after label: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") {
            guard let start = line.firstRange(of: label) else { continue }
            return Int(line[start.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }
}

/// A private PulseAudio daemon for the benchmarks (same settings as the test fixture).
struct PrivateServer {
    let directory: String
    let daemon: Spawned

    init?(directory: String) {
        self.directory = directory
        for folder in ["", "/home", "/runtime", "/config"] { mkdir(directory + folder, 0o700) }
        daemon = Spawned(
            "pulseaudio",
            [
                "--daemonize=no", "--exit-idle-time=-1", "-n", "--use-pid-file=no", "--disable-shm=yes",
                "--log-target=stderr", "--log-level=error",
                "--load=module-null-sink sink_name=metro rate=48000 channels=2 format=float32le norewinds=1",
                "--load=module-native-protocol-unix auth-anonymous=1 socket=\(directory)/native",
            ],
            environment: [
                "HOME": directory + "/home", "XDG_RUNTIME_DIR": directory + "/runtime",
                "XDG_CONFIG_HOME": directory + "/config",
            ])
        for _ in 0..<100 {
            if Spawned("pactl", ["info"], environment: environment).finish().status == 0 { return }
            usleep(50_000)
        }
        stop()
        return nil
    }

    var environment: [String: String] {
        ["PULSE_SERVER": "unix:\(directory)/native", "PULSE_COOKIE": directory + "/cookie"]
    }

    func stop() {
        daemon.signal(SIGTERM)
        _ = daemon.finish()
        _ = Spawned("rm", ["-rf", directory]).finish()
    }
}
