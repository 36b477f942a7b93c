import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The binary with `--driver jack`, against a private jackd (JACK_DEFAULT_SERVER names it).
@Suite("JACK: metronome --driver jack, recorded", .serialized)
struct JackCommandTests {
    /// Waits until the server lists `port` (5 s at most).
    static func waitForPort(_ port: String, on server: JackServer) throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let listing = try ChildProcess("/usr/bin/jack_lsp", ["-s", server.name], environment: server.clientEnvironment)
                .wait()
            if listing.standardOutput.split(separator: "\n").contains(Substring(port)) { return }
            usleep(20_000)
        }
        Issue.record("\(port) never appeared on \(server.name)")
    }

    /// The server's connections, as `jack_lsp -c` prints them: once they hold every one of `expected` (a client's
    /// ports are registered before it connects them, so a listing taken when a port appears can come before its
    /// connections), or the last listing after 5 s.
    static func connections(on server: JackServer, holding expected: [String] = []) throws -> String {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let listing = try ChildProcess(
                "/usr/bin/jack_lsp", ["-s", server.name, "-c"], environment: server.clientEnvironment
            ).wait().standardOutput
            if expected.allSatisfy({ listing.contains($0) }) || Date() >= deadline { return listing }
            usleep(20_000)
        }
    }

    /// For the recorded runs, repeated up to five times (never silently) when a late cycle can explain intervals off
    /// (`JackServer.lateCyclesExplaining`): the late cycles, or 0.
    static func lateCycles(_ samples: [Float], every interval: Int, on server: JackServer) -> Int {
        let found = Array(onsets(samples).dropFirst())
        return server.lateCyclesExplaining([zip(found, found.dropFirst()).map { $1 - $0 }], every: interval)
    }

    @Test("metronome 240 --driver jack at the server's 44.1 kHz: every recorded interval is a quarter of a second to the frame, the ports go to the physical playback ports, and --verbose reports the client, its period, its xruns and no late event")
    func playsThroughJack() throws {
        // Each run's server is stopped before the next starts (they share one name): none leaves the closure.
        let ((serverName, result, connections, samples), _) = try firstRunWithoutUnderruns(
            attempts: 5, cause: JackServer.recordingCause
        ) {
            let server = try JackServer(rate: 44_100, period: 128)
            let ours = try ChildProcess(
                CommandRunner.executable, ["240", "--driver", "jack", "--duration", "4", "--verbose", "--sound", "beep"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            let connections = try Self.connections(
                on: server, holding: ["metronome:out_1\n   system:playback_1", "metronome:out_2\n   system:playback_2"])
            let samples = try server.record(["metronome:out_1"], seconds: 2.5)[0]
            let result = ours.wait()
            return ((server.name, result, connections, samples), Self.lateCycles(samples, every: 11_025, on: server))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(connections.contains("metronome:out_1\n   system:playback_1"), "\(connections)")
        #expect(connections.contains("metronome:out_2\n   system:playback_2"), "\(connections)")
        // The recording starts anywhere (JackServer.record leaves its first moments out): from its second onset on.
        let found = Array(onsets(samples).dropFirst())
        #expect(found.count >= 8, "\(found)")
        let gaps = zip(found, found.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 == 11_025 }, "intervals: \(gaps)")
        #expect(
            result.standardError.contains(
                "metronome: JACK: client 'metronome' on server '\(serverName)', period 128 frames (2.9 ms) at 44100 Hz\n"),
            "\(result.standardError)")
        // The count is the whole run's, jack_capture's joining the graph included (see JackServer.record).
        #expect(result.standardError.contains("metronome: xruns reported by the server: "), "\(result.standardError)")
        #expect(result.standardError.contains("metronome: late events: 0\n"), "\(result.standardError)")
    }

    @Test("--client-name and --connect name the client and its connections; --no-connect leaves the ports alone")
    func namesAndConnections() throws {
        let server = try JackServer()
        let named = try ChildProcess(
            CommandRunner.executable,
            ["120", "--driver", "jack", "--client-name", "click", "--connect", "system:playback_2,system:playback_1",
             "--duration", "2", "--quiet"],
            environment: server.clientEnvironment)
        try Self.waitForPort("click:out_2", on: server)
        let crossed = try Self.connections(
            on: server, holding: ["click:out_1\n   system:playback_2", "click:out_2\n   system:playback_1"])
        #expect(named.wait().status == 0)
        #expect(crossed.contains("click:out_1\n   system:playback_2"), "\(crossed)")
        #expect(crossed.contains("click:out_2\n   system:playback_1"), "\(crossed)")
        let alone = try ChildProcess(
            CommandRunner.executable, ["120", "--driver", "jack", "--no-connect", "--duration", "2", "--quiet"],
            environment: server.clientEnvironment)
        try Self.waitForPort("metronome:out_1", on: server)
        // Nothing to wait for: a connection would come within milliseconds of the ports, and the listing is half a
        // second after them.
        usleep(500_000)
        let none = try Self.connections(on: server)
        #expect(alone.wait().status == 0)
        #expect(none.contains("metronome:out_1\nmetronome:out_2\n"), "\(none)")
    }

    @Test("No JACK server: exit 69 in one line saying how to start one; --sample-rate other than the server's: exit 64; a port that does not exist: exit 69")
    func refusals() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = "metronome-no-such-server"
        let missing = try ChildProcess(CommandRunner.executable, ["120", "--driver", "jack"], environment: environment)
            .wait()
        #expect(missing.status == 69)
        #expect(
            missing.standardError
                == "metronome: error: no JACK server 'metronome-no-such-server' is running; start one (jackd -d alsa, "
                + "or jackd -d dummy -r 48000 -p 256 without a sound card), or play through PulseAudio (--driver pulse)\n")
        let server = try JackServer()
        let rate = try ChildProcess(
            CommandRunner.executable, ["120", "--driver", "jack", "--sample-rate", "44100"],
            environment: server.clientEnvironment
        ).wait()
        #expect(rate.status == 64)
        #expect(
            rate.standardError
                == "metronome: error: --sample-rate 44100: the JACK server '\(server.name)' runs at 48000 Hz; with "
                + "--driver jack leave --sample-rate out\n")
        let port = try ChildProcess(
            CommandRunner.executable, ["120", "--driver", "jack", "--connect", "system:nowhere"],
            environment: server.clientEnvironment
        ).wait()
        #expect(port.status == 69)
        #expect(
            port.standardError
                == "metronome: error: the JACK server '\(server.name)' has no port 'system:nowhere' (jack_lsp lists them)\n")
    }

    @Test("The server killed while playing and started again: the command says so, keeps the beat, plays on when it is back (every recorded interval exact) and ends 0; with --no-reconnect it ends 69 at once")
    func serverRestarted() throws {
        // The log read is the restarted server's, the one recorded. Each run's server is stopped before the next
        // starts (they share one name): none leaves the closure.
        let ((serverName, result, samples), _) = try firstRunWithoutUnderruns(attempts: 5, cause: JackServer.recordingCause) {
            let server = try JackServer()
            let ours = try ChildProcess(
                CommandRunner.executable, ["240", "--driver", "jack", "--duration", "7", "--sound", "beep"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(1_500_000)
            server.kill()
            usleep(1_000_000)
            try server.start()
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(300_000)
            let samples = try server.record(["metronome:out_1"], seconds: 2)[0]
            let result = ours.wait()
            return ((server.name, result, samples), Self.lateCycles(samples, every: 12_000, on: server))
        }
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("metronome: the JACK server '\(serverName)' went away: ") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("; retrying for 30 s (--reconnect-timeout)") == true, "\(lines)")
        #expect(lines.last == "metronome: the JACK server '\(serverName)' is back; playing on the same beat grid")
        let found = Array(onsets(samples).dropFirst())
        let gaps = zip(found, found.dropFirst()).map { $1 - $0 }
        #expect(found.count >= 6, "\(found)")
        #expect(gaps.allSatisfy { $0 == 12_000 }, "intervals: \(gaps)")

        let server = try JackServer()
        let once = try ChildProcess(
            CommandRunner.executable, ["240", "--driver", "jack", "--no-reconnect", "--duration", "5"],
            environment: server.clientEnvironment)
        try Self.waitForPort("metronome:out_1", on: server)
        usleep(500_000)
        let killed = Date()
        server.kill()
        let stopped = once.wait()
        #expect(Date().timeIntervalSince(killed) < 1.5)
        #expect(stopped.status == 69)
        #expect(
            stopped.standardError.hasPrefix("metronome: error: the JACK server '\(server.name)' went away: "),
            "\(stopped.standardError)")
        #expect(stopped.standardError.hasSuffix("; stopped\n"), "\(stopped.standardError)")
    }

    @Test("serve --driver jack plays every interval exactly and quits over OSC; chord and arp play at the server's 44.1 kHz and end 0")
    func otherCommands() throws {
        // Each run's server is stopped before the next starts (they share one name): none leaves the closure.
        let ((_, served, samples), _) = try firstRunWithoutUnderruns(attempts: 5, cause: JackServer.recordingCause) {
            let server = try JackServer(rate: 44_100)
            let port = try UDPPort().port
            let serve = try ChildProcess(
                CommandRunner.executable,
                ["serve", "--driver", "jack", "--bpm", "240", "--osc", "127.0.0.1:\(port)", "--quiet"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(300_000)
            let samples = try server.record(["metronome:out_1"], seconds: 2)[0]
            let quit = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port), "/metronome/quit"]).wait()
            #expect(quit.status == 0)
            let served = serve.wait()
            return ((server.name, served, samples), Self.lateCycles(samples, every: 11_025, on: server))
        }
        let server = try JackServer(rate: 44_100)
        #expect(served.status == 0, "\(served.standardError)")
        let found = Array(onsets(samples).dropFirst())
        let gaps = zip(found, found.dropFirst()).map { $1 - $0 }
        #expect(found.count >= 6, "\(found)")
        #expect(gaps.allSatisfy { $0 == 11_025 }, "intervals: \(gaps)")
        for arguments in [["chord", "Cmaj7", "--duration", "1"], ["arp", "C Am", "--bars", "1"]] {
            let result = try ChildProcess(
                CommandRunner.executable, arguments + ["--driver", "jack", "--quiet"], environment: server.clientEnvironment
            ).wait()
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        }
    }
}
