import Foundation
import MetronomeTestSupport
import Testing

/// `--transport follow` against a real jackd: the beats, tempo and meter of a timebase master (klick `-T` with a
/// tempo map; Peers/jack_timebase_master.py with a schedule of its own), and without one, the start-stop behaviour.
/// Onsets are stamped with the transport frame of the cycle they came in (Peers/jack_transport_peer.py).
@Suite("JACK transport follow: the click on a timebase master's beats, tempo and meter", .serialized)
struct JackTransportFollowTests {
    static let master = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers/jack_timebase_master.py").path

    /// The onsets a transport peer or the timebase master printed ("audio FRAME …").
    static func onsets(_ output: String) -> [Int] {
        output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.first == "audio" ? Int(words[1]) : nil
        }
    }

    @Test(
        "Beside klick -T (a bar of 3/4 at 97, two of 4/4 at 140, one of 6/8 at 80) and started at 120 in 4/4: every click of ours within a frame of klick's on the same beat (klick truncates its beat's frame, we round the middle of what its whole ticks allow), none missing, none extra"
    )
    func klickIsTheMaster() throws {
        let directory = NSTemporaryDirectory() + "metronome-follow-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let map = directory + "/map.klick"
        try "1 3/4 97\n2 4/4 140\n1 6/8 80\n".write(toFile: map, atomically: true, encoding: .utf8)
        // A run whose clicks are off klick's is repeated only when late cycles not ours while the peers recorded
        // explain how far (`JackServer.outsideCause`); otherwise it fails. The server stays in the closure: the next
        // run's has the same name.
        let (result, klickPeer, recorded, missed) = try repeatedOnlyForOutsideCauses {
            let (result, klickPeer, recorded, server, window) = try Self.runBesideKlick(map: map)
            let (problem, framesOff) = Self.problem(
                mine: Self.onsets(recorded.standardOutput), theirs: Self.onsets(klickPeer.standardOutput))
            let ours = JackServer.ClientTiming(verbose: result.standardError)
            return LiveAttempt(
                (result, klickPeer, recorded, JackRunFigures.unexplainedMissedCycles(ours, on: server)),
                outsideCause: server.outsideCause(failing: problem, framesOff: framesOff, since: window, ours: ours))
        }
        #expect(missed == nil)
        #expect(result.status == 0, "\(result.standardError)")
        try #require(
            klickPeer.status == 0 && recorded.status == 0, "\(klickPeer.standardError)\(recorded.standardError)")
        let theirs = Self.onsets(klickPeer.standardOutput)
        let mine = Self.onsets(recorded.standardOutput)
        // klick's beats: 3 at 97 (29 690.72 frames), 8 at 140 (20 571.43), then eighths at 80 (18 000).
        #expect(theirs.count == 17, "klick: \(theirs)")
        #expect(mine.count == theirs.count, "ours: \(mine)\nklick: \(theirs)")
        let errors = zip(mine, theirs).map { $0 - $1 }
        #expect(errors.allSatisfy { (0...1).contains($0) }, "ours minus klick's: \(errors)\nours: \(mine)")
        #expect(
            result.standardError.contains(
                "metronome: JACK transport: followed a timebase master (last seen at 160 BPM, 6/8); 0 tempo or meter changes of ours ignored\n"
            ),
            "\(result.standardError)")
    }

    /// What is wrong with our clicks against klick's in `klickIsTheMaster` (nil when nothing is: 17 each, ours 0 or 1
    /// frame after klick's), and how far they are off (for `JackServer.outsideCause`).
    static func problem(mine: [Int], theirs: [Int]) -> (problem: String?, framesOff: Int) {
        let errors = zip(mine, theirs).map { $0 - $1 }
        // Ours paired with klick's beat by beat: a click of ours within half of the shortest beat (18 000 frames) of
        // one of klick's is that beat's; one of klick's with none is missing, one of ours with none extra. (Paired
        // by index, one click missing put every later one a beat off: 18 001 frames for a click lost in a cycle the
        // server ran without calling us.)
        var paired: [Int] = []
        var unpaired = 0
        var (m, t) = (0, 0)
        while m < mine.count || t < theirs.count {
            if m < mine.count, t < theirs.count, abs(mine[m] - theirs[t]) < 9_000 {
                paired.append(mine[m] - theirs[t])
                (m, t) = (m + 1, t + 1)
            } else if t == theirs.count || (m < mine.count && mine[m] < theirs[t]) {
                (m, unpaired) = (m + 1, unpaired + 1)
            } else {
                (t, unpaired) = (t + 1, unpaired + 1)
            }
        }
        // Each paired click's distance from 0...1 after klick's, and a period for each change in it (a late cycle
        // moves what follows a period at most) and for each click missing or extra.
        let distances = paired.map { $0 - min(1, max(0, $0)) }
        let framesOff =
            zip([0] + distances, distances).reduce(0) { moved, pair in
                let change = abs(pair.1 - pair.0)
                return moved + (change == 0 ? 0 : 256 * max(1, (change + 255) / 256))
            } + unpaired * 256
        guard theirs.count == 17, mine.count == theirs.count, framesOff == 0 else {
            return ("ours minus klick's: \(errors); ours: \(mine); klick: \(theirs)", framesOff)
        }
        return (nil, 0)
    }

    @Test(
        "klick's beats against ours for a repeat: a click lost counts a period, not every later one a beat off; a late cycle's move a period; on time nothing"
    )
    func framesOffKlick() {
        // The run of a clean clone at 7167395: klick's beat at 271 643 missing from ours (a cycle the server ran
        // without calling us), every other within a frame.
        let klick = [
            0, 29_690, 59_381, 89_072, 109_643, 130_215, 150_786, 171_357, 191_929, 212_500, 233_072, 253_643,
            271_643, 289_643, 307_643, 325_643, 343_643,
        ]
        let lost = klick.filter { $0 != 271_643 }.map { $0 == 0 || $0 == 59_381 || $0 == 89_072 ? $0 : $0 + 1 }
        let missing = Self.problem(mine: lost, theirs: klick)
        #expect(missing.problem != nil)
        #expect(missing.framesOff == 256)
        // Every click within a frame: nothing off.
        let onTime = Self.problem(mine: klick.map { $0 + 1 }, theirs: klick)
        #expect(onTime.problem == nil && onTime.framesOff == 0)
        // From the ninth click on a period late: one change of 256, a period.
        let moved = klick.enumerated().map { $0.offset < 8 ? $0.element : $0.element + 256 }
        let late = Self.problem(mine: moved, theirs: klick)
        #expect(late.problem != nil && late.framesOff == 256)
        // One extra click of ours between two beats: a period; two lost: two.
        #expect(Self.problem(mine: (klick + [100_000]).sorted(), theirs: klick).framesOff == 256)
        #expect(Self.problem(mine: Array(klick.dropLast(2)), theirs: klick).framesOff == 512)
    }

    /// Runs klick -T with `map` and ours following it, each recorded by a transport peer: our result, the peer that
    /// recorded klick (and rolled the transport), the one that recorded us, the server, and where its log was when
    /// the peers started.
    static func runBesideKlick(map: String) throws -> (
        CommandResult, CommandResult, CommandResult, JackServer, JackServer.LogMark
    ) {
        let server = try JackServer(period: 256)
        let klick = try ChildProcess(
            "/usr/bin/klick", ["-T", "-n", "klick", "-f", map], environment: server.clientEnvironment)
        defer {
            kill(klick.pid, SIGTERM)
            _ = klick.wait()
        }
        try JackCommandTests.waitForPort("klick:out", on: server, of: klick)
        let ours = try ChildProcess(
            CommandRunner.executable,
            ["120", "--transport", "follow", "--driver", "jack", "--no-connect", "--quiet", "--verbose"],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:out_1", on: server, of: ours)
        let window = server.logMark
        let ourPeer = try ChildProcess(
            "/usr/bin/env", ["python3", JackTransportTests.peer, server.name, "metronome:out_1", "wait:8"],
            environment: server.clientEnvironment)
        usleep(400_000)
        let klickPeer = try ChildProcess(
            "/usr/bin/env",
            ["python3", JackTransportTests.peer, server.name, "klick:out", "wait:0.3", "start", "wait:7.2", "stop"],
            environment: server.clientEnvironment
        ).wait()
        let recorded = ourPeer.wait()
        kill(ours.pid, SIGINT)
        return (ours.wait(), klickPeer, recorded, server, window)
    }

    @Test(
        "A JACK-Client timebase master at 96 in 4/4, 150 from the middle of beat 5, 6/8 at 160 eighths from bar 3; ours started at 100 in 3/4: every click on the master's beat frame exactly (they are whole frames), and a tempo sent over OSC while it leads is ignored and counted"
    )
    func pythonMasterChangesTempoAndMeter() throws {
        // Repeated only for late cycles not ours that explain how far the clicks are off, as above.
        let (served, recorded, missed) = try repeatedOnlyForOutsideCauses {
            let (served, recorded, server, window) = try Self.runBesidePythonMaster()
            let mine = Self.onsets(recorded.standardOutput)
            let heard = Self.pythonMasterBeats.filter { $0 <= (mine.last ?? 0) }
            let ours = JackServer.ClientTiming(verbose: served.standardError)
            return LiveAttempt(
                (served, recorded, JackRunFigures.unexplainedMissedCycles(ours, on: server)),
                outsideCause: server.outsideCause(
                    failing: mine.count >= 18 && mine == heard ? nil : "ours: \(mine)",
                    framesOff: JackRunFigures.framesOff(
                        mine, period: 256, nearest: JackRunFigures.nearest(in: Self.pythonMasterBeats)),
                    since: window, ours: ours))
        }
        #expect(missed == nil)
        #expect(served.status == 0, "\(served.standardError)")
        try #require(recorded.status == 0, "\(recorded.standardError)")
        let mine = Self.onsets(recorded.standardOutput)
        // The master's beats up to our last click.
        let heard = Self.pythonMasterBeats.filter { $0 <= (mine.last ?? 0) }
        #expect(mine.count >= 18 && mine == heard, "ours: \(mine)")
        #expect(
            served.standardError.contains(
                "metronome: JACK transport: followed a timebase master (last seen at 160 BPM, 6/8); 1 tempo or meter changes of ours ignored\n"
            ),
            "\(served.standardError)")
    }

    /// The Python master's beats in `pythonMasterChangesTempoAndMeter`: 96 in 4/4, 30 000 frames a beat; from
    /// 135 000 (beat 4.5) 150: the next beats at 144 600 + 19 200 n; from 202 200 (bar 3) eighths at 160: 18 000.
    static let pythonMasterBeats =
        [0, 30_000, 60_000, 90_000, 120_000, 144_600, 163_800, 183_000] + (0..<40).map { 202_200 + $0 * 18_000 }

    /// Runs `serve --transport follow` at 100 in 3/4 beside Peers/jack_timebase_master.py (96 in 4/4, 150 from
    /// 135 000, 6/8 at 160 from 202 200, for 9 s), sending it `/metronome/tempo 200` after 3 s: our result and the
    /// master's recording of us, the server, and where its log was when the master started.
    static func runBesidePythonMaster() throws -> (CommandResult, CommandResult, JackServer, JackServer.LogMark) {
        let server = try JackServer(period: 256)
        let port = try UDPPort().port
        let serve = try ChildProcess(
            CommandRunner.executable,
            [
                "serve", "--driver", "jack", "--transport", "follow", "--bpm", "100", "--meter", "3/4",
                "--no-connect", "--osc", "127.0.0.1:\(port)", "--quiet", "--verbose",
            ],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:out_1", on: server, of: serve)
        let window = server.logMark
        let master = try ChildProcess(
            "/usr/bin/env",
            [
                "python3", Self.master, server.name, "metronome:out_1", "9", "0:96:4/4", "135000:150:4/4",
                "202200:160:6/8",
            ],
            environment: server.clientEnvironment)
        usleep(3_000_000)
        let sent = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port), "/metronome/tempo", "f", "200"])
            .wait()
        #expect(sent.status == 0, "\(sent.standardError)")
        let recorded = master.wait()
        _ = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port), "/metronome/quit"]).wait()
        return (serve.wait(), recorded, server, window)
    }
    @Test(
        "--transport follow with no timebase master: as start-stop at our own 120 (every click on a whole beat of 24 000 frames, a stop and start in place, a locate to 240 000 plays its downbeat there), and --verbose says so"
    )
    func noMasterIsStartStop() throws {
        let (result, recording) = try JackTransportTests.run(
            ["120", "--transport", "follow", "--verbose"],
            steps: [
                "wait:0.5", "start", "wait:1.1", "stop", "wait:0.5", "start", "wait:0.6", "locate:240000", "wait:1",
            ])
        #expect(result.status == 0, "\(result.standardError)")
        let frames = recording.onsets.map(\.frame)
        #expect(recording.onsets.allSatisfy { $0.rolling }, "\(recording.onsets)")
        #expect(frames.allSatisfy { $0 % 24_000 == 0 }, "\(frames)")
        var runs: [[Int]] = []
        for frame in frames {
            if let last = runs.last?.last, frame - last == 24_000 {
                runs[runs.count - 1].append(frame)
            } else {
                runs.append([frame])
            }
        }
        #expect(runs.map { $0[0] } == [0, 240_000], "\(frames)")
        #expect((runs.first?.last ?? 0) >= 72_000, "\(frames)")
        #expect(
            result.standardError.contains(
                "metronome: JACK transport: no timebase master: the map's own tempo and meter, as start-stop; 0 tempo or meter changes of ours ignored\n"
            ),
            "\(result.standardError)")
    }
}
