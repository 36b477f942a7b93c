import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The binary with `--driver jack`, against a private jackd (JACK_DEFAULT_SERVER names it).
@Suite("JACK: metronome --driver jack, recorded", .serialized)
struct JackCommandTests {
    /// Waits until the server lists `port` (5 s at most). When it does not, the issue says what the server listed,
    /// the end of its log and, given the process that was to register the port, whether it is still running and what
    /// it wrote on standard error: a port that never appeared tells whose fault it was.
    static func waitForPort(_ port: String, on server: JackServer, of process: ChildProcess? = nil) throws {
        let deadline = Date().addingTimeInterval(5)
        var listed = ""
        while Date() < deadline {
            let listing = try ChildProcess(
                "/usr/bin/stdbuf", ["-oL", "/usr/bin/jack_lsp", "-s", server.name],
                environment: server.clientEnvironment
            )
            .wait(killingAfter: 3)
            listed = "jack_lsp exit \(listing.status): \(listing.standardOutput.split(separator: "\n"))"
            if listing.standardOutput.split(separator: "\n").contains(Substring(port)) { return }
            usleep(20_000)
        }
        let state =
            process.map { process in
                let exited = process.hasExited ? "exited \(process.wait().status)" : "still running"
                return "; the process \(exited), its standard error: \(process.errorOutput.debugDescription)"
            } ?? ""
        let tail = server.logTail(lines: 12).debugDescription
        Issue.record("\(port) never appeared on \(server.name) in 5 s; \(listed)\(state); its log ends: \(tail)")
    }

    /// The server's connections, as `jack_lsp -c` prints them: once they hold every one of `expected` (a client's
    /// ports are registered before it connects them, so a listing taken when a port appears can come before its
    /// connections), or the last listing after 5 s.
    static func connections(on server: JackServer, holding expected: [String] = []) throws -> String {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let listing = try ChildProcess(
                "/usr/bin/stdbuf", ["-oL", "/usr/bin/jack_lsp", "-s", server.name, "-c"],
                environment: server.clientEnvironment
            ).wait(killingAfter: 3).standardOutput
            if expected.allSatisfy({ listing.contains($0) }) || Date() >= deadline { return listing }
            usleep(20_000)
        }
    }

    /// The intervals between the onsets of a recording, from its second onset on (it starts anywhere: `record`
    /// leaves its first moments out), and what is wrong with them for a run that is to hold `count` of `interval`
    /// frames each (nil when nothing is). A recording of W frames holds floor(W / interval) - 2 of them whatever
    /// its phase: `count` must be no more.
    static func intervals(_ samples: [Float], every interval: Int, atLeast count: Int) -> (
        gaps: [Int], problem: String?
    ) {
        let found = Array(onsets(samples).dropFirst())
        let gaps = zip(found, found.dropFirst()).map { $1 - $0 }
        let right = gaps.count >= count && gaps.allSatisfy { $0 == interval }
        return (gaps, right ? nil : "\(gaps.count) intervals, not all \(interval): \(gaps)")
    }

    /// For `repeatedOnlyForOutsideCauses`: why a recorded run of `metronome … --verbose` whose intervals are not
    /// all `interval` may be run again (`JackServer.outsideCause`: late cycles not ours in the recorded window
    /// explaining how far they are off), or nil.
    static func outsideCause(
        _ samples: [Float], every interval: Int, atLeast count: Int, window: JackServer.LogMark, on server: JackServer,
        verbose standardError: String
    ) -> String? {
        let (gaps, problem) = intervals(samples, every: interval, atLeast: count)
        return server.outsideCause(
            failing: problem, framesOff: JackServer.framesOff([gaps], every: interval, period: server.period),
            since: window,
            ours: JackServer.ClientTiming(verbose: standardError))
    }

    /// How long `playsThroughJack` records, in seconds (RecordedIntervalsTests holds its window to 8 intervals).
    static let recorded = 1.7

    @Test(
        "metronome 360 --driver jack at the server's 44.1 kHz: every recorded interval is a sixth of a second to the frame, the ports go to the physical playback ports, and --verbose reports the client, its period, its xruns, no late event and the process callback within half its period (but for one in a thousand)"
    )
    func playsThroughJack() throws {
        // Each run's server is stopped before the next starts (they share one name): none leaves the closure.
        // The command plays until Ctrl-C after the recording, however long the set-up takes. The recording holds
        // 1.7 s (74 970 frames): `intervals` drops the first onset (a click cut by the window's start, or a whole
        // one), so a window of W frames holds floor(W / 7350) - 2 intervals whatever its phase, 8 here. At 1.6 s it
        // held 7 when the window began within 735 frames after a beep's 2205 had ended (a run in ten: a clean clone
        // on 2026-12-04 and the JACK lane's halves by hand, every interval exact).
        let (serverName, result, connections, samples) = try repeatedOnlyForOutsideCauses {
            let server = try JackServer(rate: 44_100, period: 128)
            let ours = try ChildProcess(
                CommandRunner.executable, ["360", "--driver", "jack", "--verbose", "--sound", "beep"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            let connections = try Self.connections(
                on: server, holding: ["metronome:out_1\n   system:playback_1", "metronome:out_2\n   system:playback_2"])
            let (channels, window) = try server.record(["metronome:out_1"], seconds: Self.recorded)
            ours.send(SIGINT)
            let result = ours.wait()
            return LiveAttempt(
                (server.name, result, connections, channels[0]),
                outsideCause: Self.outsideCause(
                    channels[0], every: 7350, atLeast: 8, window: window, on: server,
                    verbose: result.standardError))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(connections.contains("metronome:out_1\n   system:playback_1"), "\(connections)")
        #expect(connections.contains("metronome:out_2\n   system:playback_2"), "\(connections)")
        // The window RecordedIntervalsTests counts on: fewer frames kept could hold fewer than 8 intervals.
        #expect(samples.count >= Int(Self.recorded * 44_100), "frames kept: \(samples.count)")
        let (gaps, problem) = Self.intervals(samples, every: 7350, atLeast: 8)
        #expect(problem == nil, "intervals: \(gaps)")
        #expect(
            result.standardError.contains(
                "metronome: JACK: client 'metronome' on server '\(serverName)', period 128 frames (2.9 ms) at 44100 Hz\n"
            ),
            "\(result.standardError)")
        // The count is the whole run's, jack_capture's joining the graph included (see JackServer.record).
        #expect(result.standardError.contains("metronome: xruns reported by the server: "), "\(result.standardError)")
        #expect(result.standardError.contains("metronome: late events: 0\n"), "\(result.standardError)")
        // Ours: no callback on the CPU (or waiting) half a period (the machine may preempt one longer, as in
        // JackOutputTests.exactFrames; a slow render would be on the CPU that long).
        let timing = try #require(JackServer.ClientTiming(verbose: result.standardError), "\(result.standardError)")
        #expect(!timing.overran, "\(timing)")
    }

    @Test("--client-name and --connect name the client and its connections; --no-connect leaves the ports alone")
    func namesAndConnections() throws {
        let server = try JackServer()
        let named = try ChildProcess(
            CommandRunner.executable,
            [
                "120", "--driver", "jack", "--client-name", "click", "--connect", "system:playback_2,system:playback_1",
                "--duration", "2", "--quiet",
            ],
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

    @Test(
        "No JACK server: exit 69 in one line saying how to start one; --sample-rate other than the server's: exit 64; a port that does not exist: exit 69"
    )
    func refusals() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = "metronome-no-such-server"
        let missing = try ChildProcess(CommandRunner.executable, ["120", "--driver", "jack"], environment: environment)
            .wait()
        #expect(missing.status == 69)
        #expect(
            missing.standardError
                == "metronome: error: no JACK server 'metronome-no-such-server' is running; start one (jackd -d alsa, "
                + "or jackd -d dummy -r 48000 -p 256 without a sound card), or play through PulseAudio (--driver pulse)\n"
        )
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
                == "metronome: error: the JACK server '\(server.name)' has no port 'system:nowhere' (jack_lsp lists them)\n"
        )
    }

    @Test(
        "The server killed while playing and started again: the command says so, keeps the beat, plays on when it is back (every recorded interval exact) and ends 0; with --no-reconnect it ends 69 at once"
    )
    func serverRestarted() throws {
        // The window checked is the restarted server's recording. Each run's server is stopped before the next
        // starts (they share one name): none leaves the closure. The command plays for 8 s: its 1.3 s recording
        // starts some 2.5 s in, later under load (at 5 s, a clean clone's recording held only 6 clicks, the command
        // ended in it).
        let (serverName, result, samples) = try repeatedOnlyForOutsideCauses {
            let server = try JackServer()
            let ours = try ChildProcess(
                CommandRunner.executable,
                ["600", "--driver", "jack", "--duration", "8", "--sound", "beep", "--verbose"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(800_000)
            server.kill()
            usleep(500_000)
            // No client of the test's opens before ours is back (`JackServer.start(listing:)`): its line first.
            try server.start(listing: false)
            try JackTransportReconnectTests.waitForReturn(of: ours, on: server)
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(300_000)
            let (channels, window) = try server.record(["metronome:out_1"], seconds: 1.3)
            let result = ours.wait()
            return LiveAttempt(
                (server.name, result, channels[0]),
                outsideCause: Self.outsideCause(
                    channels[0], every: 4800, atLeast: 10, window: window, on: server, verbose: result.standardError))
        }
        #expect(result.status == 0, "\(result.standardError)")
        // Its two lines, then --verbose's report (only to tell a late cycle of ours from the machine's).
        let lines = JackRunFigures.messages(result.standardError)
        #expect(lines.count == 2, "\(result.standardError)")
        #expect(lines.first?.hasPrefix("metronome: the JACK server '\(serverName)' went away: ") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("; retrying for 30 s (--reconnect-timeout)") == true, "\(lines)")
        #expect(lines.last == "metronome: the JACK server '\(serverName)' is back; playing on the same beat grid")
        let (gaps, problem) = Self.intervals(samples, every: 4800, atLeast: 10)
        #expect(problem == nil, "intervals: \(gaps)")

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

    @Test(
        "serve --driver jack plays every interval exactly and quits over OSC; chord and arp play at the server's 44.1 kHz and end 0"
    )
    func otherCommands() throws {
        // Each run's server is stopped before the next starts (they share one name): none leaves the closure.
        let (served, samples) = try repeatedOnlyForOutsideCauses {
            let server = try JackServer(rate: 44_100)
            let port = try UDPPort().port
            let serve = try ChildProcess(
                CommandRunner.executable,
                ["serve", "--driver", "jack", "--bpm", "600", "--osc", "127.0.0.1:\(port)", "--quiet", "--verbose"],
                environment: server.clientEnvironment)
            try Self.waitForPort("metronome:out_1", on: server)
            usleep(300_000)
            let (channels, window) = try server.record(["metronome:out_1"], seconds: 1.3)
            let quit = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port), "/metronome/quit"]).wait()
            #expect(quit.status == 0)
            let served = serve.wait()
            return LiveAttempt(
                (served, channels[0]),
                outsideCause: Self.outsideCause(
                    channels[0], every: 4410, atLeast: 10, window: window, on: server, verbose: served.standardError))
        }
        let server = try JackServer(rate: 44_100)
        #expect(served.status == 0, "\(served.standardError)")
        let (gaps, problem) = Self.intervals(samples, every: 4410, atLeast: 10)
        #expect(problem == nil, "intervals: \(gaps)")
        for arguments in [["chord", "Cmaj7", "--duration", "1"], ["arp", "C Am", "--bars", "1"]] {
            let result = try ChildProcess(
                CommandRunner.executable, arguments + ["--driver", "jack", "--quiet"],
                environment: server.clientEnvironment
            ).wait()
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        }
    }
}

/// What `JackCommandTests.intervals` can find in a window: arithmetic on synthetic beeps, no server.
@Suite("The intervals a recorded window holds")
struct RecordedIntervalsTests {
    @Test(
        "A window of W frames holds floor(W / interval) - 2 intervals whatever its phase: playsThroughJack's 1.7 s at 44.1 kHz holds 8 of 7350, where 1.6 s held 7 in a tenth of its phases"
    )
    func intervalsAWindowHolds() {
        // Beeps of 2205 frames (50 ms), each sample nonzero, every 7350 frames, the first heard at `phase`; the
        // window starts at every 7th frame of a period.
        let train = (0..<(7350 + 80_000)).map { frame -> Float in frame % 7350 < 2205 ? 0.5 : 0 }
        func window(frames: Int, phase: Int) -> [Float] {
            Array(train[((7350 - phase) % 7350)...].prefix(frames))
        }
        var fewest = (long: Int.max, short: Int.max, shortFailing: 0)
        for phase in stride(from: 0, to: 7350, by: 7) {
            let frames = Int(JackCommandTests.recorded * 44_100)
            let long = JackCommandTests.intervals(window(frames: frames, phase: phase), every: 7350, atLeast: 8)
            let short = JackCommandTests.intervals(window(frames: 70_560, phase: phase), every: 7350, atLeast: 8)
            #expect(long.gaps.allSatisfy { $0 == 7350 } && short.gaps.allSatisfy { $0 == 7350 })
            fewest.long = min(fewest.long, long.gaps.count)
            fewest.short = min(fewest.short, short.gaps.count)
            if short.problem != nil { fewest.shortFailing += 1 }
        }
        #expect(fewest.long == 8)
        #expect(fewest.short == 7)
        // Phases 4410 to 5145 (the window starting at most 735 frames after a beep has ended): 106 of the 1050 tried.
        #expect(fewest.shortFailing == 106)
    }
}
