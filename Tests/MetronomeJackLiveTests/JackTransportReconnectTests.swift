import Foundation
import MetronomeTestSupport
import Testing

/// `--transport` when the JACK server goes away and a server of the same name comes back: a restarted server's
/// transport is stopped at frame 0, and ours waits silent on it, then plays as on a first start. Driven and recorded by
/// Peers/jack_transport_peer.py on each server (JackTransportTests' helpers).
@Suite("JACK transport: the server killed and started again while the click is locked to its transport", .serialized)
struct JackTransportReconnectTests {
    /// What a run across a restart gave: our result, the recordings on the first and on the new server.
    struct Restart {
        var result: CommandResult
        var server: String
        var before: JackTransportTests.Recording
        var after: JackTransportTests.Recording
    }

    /// For `repeatedOnlyForOutsideCauses`: a run across a restart checked by `checks` (kept as problems), with why it
    /// may be run again: late cycles not ours in the two recordings' parts of the servers' logs (`window`) that
    /// explain how far the onsets are off (`framesOff`), a period each. Also keeps what is wrong with the cycles the
    /// server ran without calling us (`JackRunFigures.unexplainedMissedCycles`).
    static func verdict<Value>(
        _ value: Value, checks: RunChecks, framesOff: Int, result: CommandResult, server: JackServer,
        window: JackServer.LogWindow
    ) -> LiveAttempt<(Value, RunChecks, String?)> {
        let ours = JackServer.ClientTiming(verbose: result.standardError)
        return LiveAttempt(
            (value, checks, JackRunFigures.unexplainedMissedCycles(ours, on: server)),
            outsideCause: server.outsideCause(failing: checks.summary, framesOff: framesOff, in: window, ours: ours))
    }

    /// The line the command writes when the server goes away (its reason is libjack's) and when it is back.
    static func isLostLine(_ line: String?, server: String) -> Bool {
        line?.hasPrefix("metronome: the JACK server '\(server)' went away: ") == true
            && line?.hasSuffix("; retrying for 30 s (--reconnect-timeout)") == true
    }
    static func backLine(server: String) -> String {
        "metronome: the JACK server '\(server)' is back; playing on the same beat grid"
    }

    /// How far `frames` are off whole beats of `beat` frames (`JackRunFigures.framesOff`).
    static func beatsOff(_ frames: [Int], beat: Int) -> Int {
        JackRunFigures.framesOff(frames, period: 256) { ($0 + beat / 2) / beat * beat }
    }

    /// Waits until `process` has written `lines` lines to standard error (`seconds` at most); returns them.
    static func errorLines(of process: ChildProcess, count lines: Int, within seconds: Double) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var found: [String] = []
        repeat {
            found = process.errorOutput.split(separator: "\n").map(String.init)
            if found.count >= lines { break }
            usleep(10_000)
        } while Date() < deadline
        return found
    }

    /// Waits (5 s at most) for our command's line that it is back on `server`, started again without a listing client
    /// (`JackServer.start(listing:)`), before any client of the test's opens; fails the test with our standard error
    /// and the server's log (a daemon that did not come up says why there) when it does not come.
    static func waitForReturn(
        of ours: ChildProcess, on server: JackServer, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let lines = errorLines(of: ours, count: 2, within: 5)
        try #require(
            lines.count >= 2 && lines[1].hasPrefix("metronome: the JACK server '\(server.name)' is back; "),
            "\(ours.errorOutput); the server's log ends: \(server.logTail(lines: 12))", sourceLocation: sourceLocation)
    }

    /// `metronome ARGUMENTS --driver jack --no-connect --quiet` on a fresh server, the transport peer's `before`
    /// steps beside it, then the server killed (SIGKILL) and the command's line that it went away waited for (2 s at
    /// most).
    /// - Returns: the server (not running), our command (in the gap), the peer's recording, and the part of the
    ///   server's log it covers.
    static func killedWhilePlaying(_ arguments: [String], before: [String]) throws -> (
        server: JackServer, ours: ChildProcess, recording: JackTransportTests.Recording,
        window: (start: JackServer.LogMark, end: JackServer.LogMark?)
    ) {
        try killedWhilePlaying(arguments) { try JackTransportTests.record(on: $0, steps: before) }
    }

    /// As above, with `before` run on the server (a peer) before it is killed; its result is returned.
    static func killedWhilePlaying<Before>(_ arguments: [String], before: (JackServer) throws -> Before) throws -> (
        server: JackServer, ours: ChildProcess, recording: Before,
        window: (start: JackServer.LogMark, end: JackServer.LogMark?)
    ) {
        let server = try JackServer(period: 256)
        let ours = try ChildProcess(
            CommandRunner.executable, arguments + ["--driver", "jack", "--no-connect", "--quiet"],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:out_1", on: server, of: ours)
        let start = server.logMark
        let recording = try before(server)
        let end = server.logMark
        server.kill()
        #expect(isLostLine(errorLines(of: ours, count: 1, within: 2).first, server: server.name), "\(ours.errorOutput)")
        return (server, ours, recording, (start, end))
    }

    /// Starts `server` again under its name a second after it was killed, and waits until `ours` is back on it (its
    /// port listed, its line that the server is back written).
    static func restart(_ server: JackServer, for ours: ChildProcess) throws {
        usleep(1_000_000)
        // No client of the test's opens before ours is back (`JackServer.start(listing:)`): its line first.
        try server.start(listing: false)
        try waitForReturn(of: ours, on: server)
        #expect(errorLines(of: ours, count: 2, within: 5).last == backLine(server: server.name), "\(ours.errorOutput)")
        try JackCommandTests.waitForPort("metronome:out_1", on: server, of: ours)
    }

    /// `metronome 120 --transport MODE --verbose` on a server the peer starts (`before`'s steps), then kills and, a
    /// second later, starts again under its name; once our client is back on it, the peer's `after` steps on the
    /// new server, then Ctrl-C. Returns the run, the server, and the parts of its log the two recordings cover.
    static func runAcrossRestart(mode: String, before: [String], after: [String]) throws -> (
        Restart, JackServer, JackServer.LogWindow
    ) {
        let (server, ours, first, window) = try killedWhilePlaying(
            ["120", "--transport", mode, "--verbose"], before: before)
        try restart(server, for: ours)
        let start = server.logMark
        let second = try JackTransportTests.record(on: server, steps: after)
        kill(ours.pid, SIGINT)
        return (
            Restart(result: ours.wait(), server: server.name, before: first, after: second), server,
            JackServer.LogWindow([window, (start, nil)])
        )
    }

    @Test(
        "The stale JACK registry cleared before a test process's first server takes the segments it indexes with it (a killed server's segment kept its transport frame for the next server: every run of this suite after one ending on a killed server found its first transport at 40 448 or 40 960, not 0)"
    )
    func staleSegmentsAreCleared() {
        #expect(["jack-0-0", "jack-0-1", "jack-1000-12"].allSatisfy(JackServer.isSegment))
        let others = ["jack-shm-registry", "jack_db-0", "jack-0", "jack-0-0-1", "jack-a-0", "jack--0"]
        #expect(!others.contains(where: JackServer.isSegment))
    }

    @Test(
        "Killed while rolling and started again (its transport stopped at 0): the two lines, silence while the new transport is stopped, then every click on a whole beat of its frames from frame 0, and a locate to 96 000 plays its downbeat there; midi_out's Start, Stop, Song Position and Continue on the new server's frames, nothing more; as master, every rolling cycle's bar, beat and tick the map's on both servers",
        arguments: ["start-stop", "master", "follow"])
    func playsOnTheNewTransport(mode: String) throws {
        // A run whose checks fail is repeated only when late cycles not ours in the two recordings explain how far
        // its onsets are off whole beats (`verdict`); otherwise it fails. The server stays in the closure: the next
        // run's has the same name.
        let (run, checks, missed) = try repeatedOnlyForOutsideCauses {
            let (run, server, window) = try Self.runAcrossRestart(
                mode: mode, before: ["wait:0.3", "start", "wait:1.3"],
                after: [
                    "midi=metronome:midi_out", "wait:0.5", "start", "wait:1.3", "locate:96000", "wait:1.1", "stop",
                    "wait:0.4",
                ])
            var check = RunChecks()
            Self.check(run, mode: mode, &check)
            return Self.verdict(
                run, checks: check,
                framesOff: Self.beatsOff(run.before.onsets.map(\.frame), beat: 24_000)
                    + Self.beatsOff(run.after.onsets.map(\.frame), beat: 24_000),
                result: run.result, server: server, window: window)
        }
        checks.record()
        #expect(missed == nil)
        print("\(mode): \(run.before.onsets.count) clicks before the restart, \(run.after.onsets.count) after")
    }

    /// `playsOnTheNewTransport`'s checks.
    static func check(_ run: Restart, mode: String, _ check: inout RunChecks) {
        check.expect(run.result.status == 0, "\(run.result.standardError)")
        let lines = run.result.standardError.split(separator: "\n").map(String.init)
        // The two lines, then --verbose's report of the new client.
        check.expect(
            lines.count > 2 && Self.isLostLine(lines[0], server: run.server)
                && lines[1] == Self.backLine(server: run.server)
                && lines[2].hasPrefix("metronome: JACK: client 'metronome' on server '\(run.server)'"),
            "\(lines)")
        // On the first server: from frame 0, every beat while it rolled.
        let before = run.before.onsets.map(\.frame)
        check.expect(run.before.onsets.allSatisfy { $0.rolling }, "\(run.before.onsets)")
        check.expect(
            JackTransportTests.runs(before, beat: 24_000).map { $0[0] } == [0],
            "\(before), the peer's steps \(run.before.steps) \(run.result.standardError)")
        check.expect(before.count >= 3, "\(before)")
        // On the new one: nothing while it is stopped (0.5 s before the start, 0.4 s after the stop), then from its
        // frame 0, every beat to the locate, and from 96 000 on.
        let after = run.after.onsets.map(\.frame)
        check.expect(run.after.onsets.allSatisfy { $0.rolling }, "\(run.after.onsets)")
        let runs = JackTransportTests.runs(after, beat: 24_000)
        check.expect(runs.map { $0[0] } == [0, 96_000], "\(after)")
        // midi_out on the new server, by transport frame: the start's Stop and Start on frame 0, the locate's Stop,
        // Song Position (sixteenth 16) and Continue on 96 000, the last Stop; nothing else (a resync of the return
        // on top of the seek's own once put a Song Position a sixteenth on a few cycles after the Start).
        check.expect(
            run.after.midi.map(\.bytes) == ["fc", "fa", "fc", "f2 10 00", "fb", "fc"]
                && run.after.midi.prefix(5).map(\.frame) == [0, 0, 96_000, 96_000, 96_000], "\(run.after.midi)")
        check.expect(runs.count == 2 && runs[0].count >= 3 && runs[1].count >= 3, "\(after)")
        let bar: (Int) -> [String] = { frame in
            let beat = frame % 96_000 / 24_000 + 1
            return ["\(frame / 96_000 + 1)", "\(beat)", "\(frame % 24_000 * 1920 / 24_000)", "4", "4", "1920", "120"]
        }
        if mode == "master" {
            // Our timebase on both servers: about 230 rolling cycles on the first, 450 on the new one.
            let first = run.before.bbt.filter(\.rolling)
            let second = run.after.bbt.filter(\.rolling)
            check.expect(first.count > 150 && second.count > 300, "\(first.count) and \(second.count) cycles")
            for cycles in [first, second] {
                if let index = cycles.firstIndex(where: { $0.fields != bar($0.frame) }) {
                    // The cycles around it, by frame and tick: a step other than a period tells a cycle the server
                    // skipped (its position then published without our callback) from a tick of ours off.
                    let around = cycles[max(0, index - 3)..<min(cycles.count, index + 4)].map {
                        "\($0.frame) \($0.fields.prefix(3).joined(separator: "."))"
                    }
                    let wrong = cycles[index]
                    check.expect(
                        false, "at \(wrong.frame): \(wrong.fields), not \(bar(wrong.frame)); cycles: \(around)")
                }
            }
        } else {
            check.expect(run.before.bbt.isEmpty && run.after.bbt.isEmpty, "a timebase master where there is none")
        }
    }

    @Test(
        "A song (a klick map of 2 bars of 4/4 at 120, 4 s) killed after 1 s rolling and away for 4 s: the command waits (the song does not play out in the gap), and once the transport is started on the server started again, plays the song from its top on frame 0, every beat on its frame"
    )
    func aSongWaitsForTheNewTransport() throws {
        let directory = NSTemporaryDirectory() + "metronome-transport-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let map = directory + "/song.klick"
        try "2 4/4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        // Repeated only when late cycles not ours in the two recordings explain how far the onsets are off (`verdict`).
        let (run, checks, missed) = try repeatedOnlyForOutsideCauses {
            let (server, ours, first, window) = try Self.killedWhilePlaying(
                ["play", map, "--transport", "start-stop", "--verbose"], before: ["start", "wait:1"])
            // The rest of the song (3 s) is over before the server is back (`restart` waits a second more).
            usleep(3_000_000)
            let waited = !ours.hasExited
            try Self.restart(server, for: ours)
            let start = server.logMark
            let second = try JackTransportTests.record(on: server, steps: ["wait:0.5", "start", "wait:2.2", "stop"])
            kill(ours.pid, SIGINT)
            let run = (result: ours.wait(), first: first, second: second, waited: waited)
            var check = RunChecks()
            check.expect(run.waited, "ended in the gap: \(run.result.standardError)")
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            check.expect(run.first.onsets.map(\.frame) == [0, 24_000, 48_000], "\(run.first.onsets)")
            check.expect(run.second.onsets.map(\.frame) == (0..<5).map { $0 * 24_000 }, "\(run.second.onsets)")
            check.expect(run.second.onsets.allSatisfy { $0.rolling }, "\(run.second.onsets)")
            return Self.verdict(
                run, checks: check,
                framesOff: Self.beatsOff(first.onsets.map(\.frame), beat: 24_000)
                    + Self.beatsOff(second.onsets.map(\.frame), beat: 24_000),
                result: run.result, server: server, window: JackServer.LogWindow([window, (start, nil)]))
        }
        checks.record()
        #expect(missed == nil, "\(run.result.standardError)")
    }

    @Test(
        "--transport follow at 100 in 3/4 beside a timebase master at 80 in 3/4, the server killed, then beside a new master at 96 in 4/4 on the server started again: every click on the new master's beat frame exactly (nothing of the old master's tempo, meter or frames kept), and --verbose says whom it followed last"
    )
    func followsTheNewMaster() throws {
        // Repeated only when late cycles not ours while the masters recorded explain how far the onsets are off
        // (`verdict`).
        let (run, checks, missed) = try repeatedOnlyForOutsideCauses {
            let (server, ours, first, window) = try Self.killedWhilePlaying(
                ["100", "--meter", "3/4", "--transport", "follow", "--verbose"]
            ) { try Self.beside(master: "0:80:3/4", for: 2, on: $0) }
            try Self.restart(server, for: ours)
            let start = server.logMark
            let second = try Self.beside(master: "0:96:4/4", for: 3, on: server)
            kill(ours.pid, SIGINT)
            let run = (result: ours.wait(), first: first, second: second)
            var check = RunChecks()
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            // 80 a minute: a beat every 36 000 frames; 96: every 30 000; each from its master's start.
            // A click off the master's beat comes with our report: late events, stalled ticks, cycles without us.
            check.expect(
                run.first.count >= 3 && run.first == (0..<run.first.count).map { $0 * 36_000 },
                "\(run.first) \(run.result.standardError)")
            check.expect(
                run.second.count >= 4 && run.second == (0..<run.second.count).map { $0 * 30_000 },
                "\(run.second) \(run.result.standardError)")
            check.expect(
                run.result.standardError.contains(
                    "metronome: JACK transport: followed a timebase master (last seen at 96 BPM, 4/4); 0 tempo or meter changes of ours ignored\n"
                ),
                "\(run.result.standardError)")
            // The bound: the first master's beats (36 000 apart) on the first server, the second's on the new one.
            return Self.verdict(
                run, checks: check,
                framesOff: Self.beatsOff(first, beat: 36_000) + Self.beatsOff(second, beat: 30_000),
                result: run.result, server: server, window: JackServer.LogWindow([window, (start, nil)]))
        }
        checks.record()
        #expect(missed == nil, "\(run.result.standardError)")
    }

    /// Runs Peers/jack_timebase_master.py with one segment (`FRAME:BPM:BEATS/TYPE`) on `server` for `seconds` (it
    /// starts and stops the transport); returns the onsets of our port it recorded.
    static func beside(master segment: String, for seconds: Double, on server: JackServer) throws -> [Int] {
        let master = try ChildProcess(
            "/usr/bin/env",
            ["python3", JackTransportFollowTests.master, server.name, "metronome:out_1", String(seconds), segment],
            environment: server.clientEnvironment
        ).wait()
        try #require(master.status == 0, "\(master.standardError)")
        return JackTransportFollowTests.onsets(master.standardOutput)
    }

    @Test(
        "The new server's transport started before our client is back on it (600 BPM, a beat every 4800 frames): every click on a whole beat of its frames from the first beat after the client joins (within two beats of the recorder's connection to it), none left out"
    )
    func joinsARollingTransport() throws {
        // Repeated only when late cycles not ours on the new server while the peer ran explain how far the onsets
        // are off whole beats (`verdict`); otherwise it fails.
        let (run, checks, missed) = try repeatedOnlyForOutsideCauses {
            let (server, ours, _, _) = try Self.killedWhilePlaying(
                ["600", "--transport", "start-stop", "--verbose"], before: ["start", "wait:0.5"])
            // The peer waits for the server, starts its transport as soon as it is up (before our next try, 250 ms
            // at most), then records our port from when it is there.
            let peer = try ChildProcess(
                "/usr/bin/env",
                ["python3", JackTransportTests.peer, server.name, "metronome:out_1", "start", "connect", "wait:1.2"],
                environment: server.clientEnvironment)
            usleep(600_000)
            let start = server.logMark
            // The peer is the only client of the test's to open before ours is back (`JackServer.start(listing:)`).
            try server.start(listing: false)
            let recorded = peer.wait()
            kill(ours.pid, SIGINT)
            let result = ours.wait()
            try #require(recorded.status == 0, "\(recorded.standardError)")
            let run = (result: result, recording: JackTransportTests.Recording(peerOutput: recorded.standardOutput))
            var check = RunChecks()
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            // The new transport rolled before we were on it: counted as a start joined late.
            check.expect(reportedLateTransportJoins(run.result.standardError) >= 1, "\(run.result.standardError)")
            let frames = run.recording.onsets.map(\.frame)
            check.expect(run.recording.onsets.allSatisfy { $0.rolling }, "\(run.recording.onsets)")
            check.expect(frames.allSatisfy { $0 % 4800 == 0 }, "\(frames)")
            check.expect(JackTransportTests.runs(frames, beat: 4800).count == 1, "\(frames)")
            let connected = run.recording.steps.first { $0.name == "connect" }?.frame ?? 0
            check.expect((frames.first ?? .max) - connected < 9600, "connected at \(connected): \(frames)")
            return Self.verdict(
                run, checks: check, framesOff: Self.beatsOff(frames, beat: 4800), result: result, server: server,
                window: JackServer.LogWindow([(start, nil)]))
        }
        checks.record()
        #expect(missed == nil, "\(run.result.standardError)")
    }

    @Test(
        "Ctrl-C while the server is away: exit 0 within 0.5 s, as Ctrl-C while playing, with only the line that it went away",
        arguments: ["start-stop", "master", "follow"])
    func interruptedInTheGap(mode: String) throws {
        let (server, ours, _, _) = try Self.killedWhilePlaying(
            ["120", "--transport", mode], before: ["start", "wait:0.5"])
        // In the gap: the tries every 100 to 250 ms find no server.
        usleep(400_000)
        let sent = Date()
        ours.send(SIGINT)
        let deadline = sent.addingTimeInterval(5)
        while !ours.hasExited, Date() < deadline { usleep(2_000) }
        let elapsed = Date().timeIntervalSince(sent)
        let result = ours.wait()
        print("\(mode): server away, SIGINT → exit: \(Int(elapsed * 1000)) ms")
        #expect(elapsed < 0.5)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 && Self.isLostLine(lines.first, server: server.name), "\(lines)")
    }
}
