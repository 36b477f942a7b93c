import Foundation
import MetronomeJack
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Notes played into `midi_in` by one JACK-Client client (Peers/jack_midi_peer.py, on exact frames) and our sound and
/// `midi_out` recorded by another (Peers/jack_recorder.py), both on the server's frame clock.
@Suite("JACK: MIDI in, played through and arpeggiated", .serialized)
struct JackMIDIInputTests {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers")

    /// Starts Peers/jack_recorder.py on `server` (our `out_1` and `midi_out`; with `transport`, the transport each
    /// cycle too) and waits until it has connected both ports, so that a sender started next is heard from its first
    /// frame. A sender counts its seconds from a second after its own first cycle; on a loaded machine the recorder,
    /// which loads numpy, once connected a second and a half after the Start it was to hear (the grader's run at
    /// 0732090). It records until `stopRecorder` (a minute at most), so that its end follows the sender's, however
    /// long the sender took to start.
    /// - Throws: when the recorder ends or says nothing within 30 s, with its error output.
    static func startRecorder(on server: JackServer, transport: Bool = false) throws -> ChildProcess {
        let recorder = try ChildProcess(
            "/usr/bin/env",
            [
                "python3", peers.appendingPathComponent("jack_recorder.py").path, server.name, "metronome:out_1",
                "metronome:midi_out", "60",
            ] + (transport ? ["transport"] : []),
            environment: server.clientEnvironment)
        let deadline = Date().addingTimeInterval(30)
        while !recorder.errorOutput.contains("jack_recorder: recording\n") {
            guard !recorder.hasExited, Date() < deadline else {
                let result = recorder.wait(killingAfter: 0)
                throw JackRecorderNotReady(status: result.status, errorOutput: result.standardError)
            }
            usleep(10_000)
        }
        return recorder
    }

    /// Ends a recording started by `startRecorder` (SIGINT) and waits for what it recorded.
    static func stopRecorder(_ recorder: ChildProcess) -> CommandResult {
        recorder.send(SIGINT)
        return recorder.wait()
    }

    /// What was sent, and what we sounded and sent on `midi_out`, by frame.
    struct Run {
        var result: CommandResult
        var base = 0
        var sent: [(frame: Int, bytes: String)] = []
        var sounds: [Int] = []
        var midi: [(frame: Int, bytes: String)] = []
        /// The MIDI clocks (F8) on midi_out: the click's grid, 24 a quarter note.
        var clocks: Set<Int> = []
    }

    /// Runs `metronome ARGUMENTS --driver jack --no-connect --midi-notes --verbose` on a server with period 256,
    /// plays `events` (FRAMES:HEX after the peer's base frame) into `metronome:midi_in` while recording, then Ctrl-C,
    /// and applies `checks` to what was heard; the kept run's problems are recorded as issues. The peer sends from
    /// a second after it starts, for `seconds` in all.
    /// A run whose checks fail is repeated only when late cycles not ours while the recorder ran explain it
    /// (`JackServer.outsideCause`: a cycle the server ran without calling us loses the notes that came in it and
    /// moves what follows a period later on the server's frames); never silently. The checks here are not all
    /// distances in frames, so no bound on how far beyond a late cycle not ours, our figures within half a period and
    /// no overrun of ours is asked.
    /// With `interrupting`, Ctrl-C comes as soon as the notes are sent, while the recorder still records.
    static func run(
        _ arguments: [String], events: [String], seconds: Double, interrupting: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation, checks: (Run, inout RunChecks) -> Void
    ) throws {
        let (checked, missed) = try repeatedOnlyForOutsideCauses(sourceLocation: sourceLocation) {
            // The server stays in here: the next run's has the same name.
            let (run, server, window) = try runOnce(
                arguments, events: events, seconds: seconds, interrupting: interrupting)
            var checked = RunChecks()
            checks(run, &checked)
            let ours = JackServer.ClientTiming(verbose: run.result.standardError)
            return LiveAttempt(
                (checked, JackRunFigures.unexplainedMissedCycles(ours, on: server)),
                outsideCause: server.outsideCause(failing: checked.summary, framesOff: 0, since: window, ours: ours))
        }
        checked.record()
        #expect(missed == nil, sourceLocation: sourceLocation)
    }

    private static func runOnce(_ arguments: [String], events: [String], seconds: Double, interrupting: Bool) throws
        -> (Run, JackServer, JackServer.LogMark)
    {
        let server = try JackServer(period: 256)
        let ours = try ChildProcess(
            CommandRunner.executable, arguments + ["--driver", "jack", "--no-connect", "--midi-notes", "--verbose"],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:midi_in", on: server, of: ours)
        let window = server.logMark
        let recorder = try startRecorder(on: server)
        let sender = try ChildProcess(
            "/usr/bin/env",
            [
                "python3", peers.appendingPathComponent("jack_midi_peer.py").path, server.name, "metronome:midi_in",
                String(seconds),
            ] + events,
            environment: server.clientEnvironment
        ).wait()
        // A second more after the sender's end (the sender's seconds count from its start, and what ours plays on
        // after it is checked: a set's last song); interrupted, what ours sends as it stops is in that second.
        if interrupting { kill(ours.pid, SIGINT) }
        usleep(1_000_000)
        let recorded = stopRecorder(recorder)
        if !interrupting { kill(ours.pid, SIGINT) }
        var run = Run(result: ours.wait())
        try #require(sender.status == 0, "\(sender.standardError)")
        try #require(recorded.status == 0, "\(recorded.standardError)")
        for line in sender.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard let frame = Int(words[1]) else { continue }
            if words[0] == "base" { run.base = frame }
            if words[0] == "sent" { run.sent.append((frame, words[2])) }
        }
        for line in recorded.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard let frame = Int(words[1]) else { continue }
            if words[0] == "audio" { run.sounds.append(frame) }
            if words[0] == "midi", words[2] != "f8" { run.midi.append((frame, words[2])) }
            if words[0] == "midi", words[2] == "f8" { run.clocks.insert(frame) }
        }
        return (run, server, window)
    }

    /// How long after it arrives a key takes effect in `arp --midi-in` at period 256 (docs/jack.md): the lookahead
    /// `metronome --driver jack` takes there (the 10 ms timer + two periods + 10 ms: 1472 frames,
    /// `JackOutput.coveredLatency`) and two timer periods (960): 2432.
    static let keyLatency: Int = {
        let rate = SampleRate.standard
        let lookahead = Session.defaultLookahead(
            timerInterval: .milliseconds(10),
            outputLatency: JackOutput.coveredLatency(periodFrames: 256, sampleRate: rate), sampleRate: rate)
        return Int(lookahead) + 2 * 480
    }()

    /// The latency `--verbose` reports: "MIDI input: N frames from arrival to sound, M messages late".
    static func latency(_ result: CommandResult) -> (frames: Int, late: Int)? {
        for line in result.standardError.split(separator: "\n") where line.hasPrefix("metronome: MIDI input: ") {
            let words = line.split(separator: " ")
            if let frames = Int(words[3]), let late = Int(words[9]) { return (frames, late) }
        }
        return nil
    }

    @Test(
        "Notes on midi_in sound through the instrument on the frame they arrive (played in the same JACK cycle: no latency at all), so the time between them is kept to the frame; their note on and off go out on midi_out on those same frames"
    )
    func notesPlayThrough() throws {
        // arp "N.C." plays nothing itself (and no click): every sound is a key's.
        try Self.run(
            ["arp", "N.C."], events: ["0:903c64", "200:803c40", "72007:904064", "72207:804040"], seconds: 3
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            guard let latency = Self.latency(run.result) else {
                return check.expect(false, "no MIDI input line: \(run.result.standardError)")
            }
            check.expect(latency == (0, 0))
            check.expect(run.sent.map(\.frame) == [0, 200, 72_007, 72_207].map { run.base + $0 })
            // Our midi_out: each note on and off on the frame it was sent on (channel 1).
            check.expect(
                run.midi.map(\.frame) == run.sent.map(\.frame)
                    && run.midi.map(\.bytes).map { $0.prefix(5) }
                        == ["90 3c", "80 3c", "90 40", "80 40"],
                "\(run.midi)")
            // The sound: two onsets, 72 007 frames apart, each the same few frames after its note on (where the
            // instrument's sample first leaves zero).
            check.expect(run.sounds.count == 2, "\(run.sounds)")
            if run.sounds.count == 2, run.midi.count == 4 {
                check.expect(run.sounds[1] - run.sounds[0] == 72_007)
                let lead = run.sounds[0] - run.midi[0].frame
                check.expect(
                    lead >= 0 && lead < 64 && run.sounds[1] - run.midi[2].frame == lead, "\(run.sounds), \(run.midi)")
            }
        }
    }

    /// The arpeggio's note ons on midi_out: frame and key.
    static func notes(_ run: Run) -> [(frame: Int, key: String)] {
        run.midi.filter { $0.bytes.hasPrefix("90 ") }.map { ($0.frame, String($0.bytes.dropFirst(3).prefix(2))) }
    }

    @Test(
        "arp --midi-in: C E G held, then D F A: the keys' notes in order, one every 1/16 step (6000 frames at 120) on the click's grid from the first step after the keys take effect; the new keys start on the next step after theirs; nothing after the last release"
    )
    func arpeggiatesTheKeysHeld() throws {
        try Self.run(
            ["arp", "--midi-in"],
            events: [
                "0:903c64", "10:904064", "20:904364", "40000:803c40", "40000:804040", "40000:804340", "50000:903e64",
                "50000:904164", "50000:904564", "90000:803e40", "90000:804140", "90000:804540",
            ], seconds: 3.4
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            let notes = Self.notes(run)
            guard notes.count >= 8 else { return check.expect(false, "\(notes.count) notes: \(run.midi)") }
            let first = notes[0].frame
            // Every step on the grid of the first, 6000 frames a step, and on the click's grid: on a MIDI clock.
            check.expect(notes.allSatisfy { ($0.frame - first) % 6000 == 0 }, "\(notes)")
            check.expect(notes.allSatisfy { run.clocks.contains($0.frame) }, "\(notes)")
            let effect = { (delay: Int) in run.base + delay + Self.keyLatency }
            // The first step at or after the first keys take effect (the third key, 20 frames later, is held by then).
            check.expect(first >= effect(20) && first - 6000 < effect(0), "first \(first), keys from \(effect(0))")
            let cChord = notes.filter { $0.frame < effect(40_000) }
            let dChord = notes.filter { $0.frame >= effect(50_000) }
            check.expect(
                cChord.count + dChord.count == notes.count, "a note between the release and the new keys: \(notes)")
            check.expect(
                cChord.map(\.key) == Array(["3c", "40", "43", "3c", "40", "43", "3c", "40", "43"].prefix(cChord.count)))
            check.expect(
                cChord.last.map { $0.frame + 6000 >= effect(40_000) } == true, "the C chord stopped early: \(notes)")
            check.expect(
                dChord.first.map { $0.frame - 6000 < effect(50_000) } == true, "the D chord started late: \(notes)")
            check.expect(
                dChord.map(\.key) == Array(["3e", "41", "45", "3e", "41", "45", "3e", "41", "45"].prefix(dChord.count)))
            check.expect(
                dChord.last.map { $0.frame < effect(90_000) && $0.frame + 6000 >= effect(90_000) } == true, "\(notes)")
            // Each note off the gate (0.8) of a step after its note on.
            let offs = run.midi.filter { $0.bytes.hasPrefix("80 ") }.map(\.frame)
            check.expect(Set(offs) == Set(notes.map { $0.frame + 4800 }), "\(run.midi)")
        }
    }

    @Test(
        "arp --midi-in --latch: the keys go on after they are released, until new ones are pressed, which replace them on the next step and go on after their own release"
    )
    func latchHoldsTheLastKeys() throws {
        try Self.run(
            ["arp", "--midi-in", "--latch", "--rate", "1/8"],
            events: [
                "0:903c64", "0:904064", "12000:803c40", "12000:804040", "72000:903e64", "84000:803e40",
            ], seconds: 4
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            let notes = Self.notes(run)
            let effect = { (delay: Int) in run.base + delay + Self.keyLatency }
            // Eighths at 120: 12 000 frames a step.
            guard let first = notes.first?.frame else { return check.expect(false, "no note: \(run.midi)") }
            check.expect(notes.allSatisfy { ($0.frame - first) % 12_000 == 0 }, "\(notes)")
            let latched = notes.filter { $0.frame < effect(72_000) }
            let replaced = notes.filter { $0.frame >= effect(72_000) }
            check.expect(latched.count >= 5, "\(notes)")
            check.expect(
                latched.map(\.key) == Array(["3c", "40", "3c", "40", "3c", "40", "3c", "40"].prefix(latched.count)))
            check.expect(replaced.first.map { $0.frame - 12_000 < effect(72_000) } == true, "\(notes)")
            check.expect(replaced.count >= 5 && replaced.allSatisfy { $0.key == "3e" }, "\(notes)")
            // The last note comes after the new key's release: it is latched too.
            check.expect(replaced.last.map { $0.frame > effect(84_000) } == true, "\(notes)")
        }
    }

    @Test("arp --midi-in --style asPlayed: G, C and E pressed in that order play in that order, every step")
    func asPlayedKeepsThePressOrder() throws {
        try Self.run(
            ["arp", "--midi-in", "--style", "asPlayed"],
            events: ["0:904364", "10:903c64", "20:904064", "60000:804340", "60000:803c40", "60000:804040"],
            seconds: 2.6
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            let keys = Self.notes(run).map(\.key)
            check.expect(
                keys.count >= 8
                    && keys == Array(repeatElement(["43", "3c", "40"], count: 4).joined().prefix(keys.count)))
        }
    }

    @Test(
        "arp --midi-in --style upDown over 4 keys held for 150 steps: the order turns at its ends every 6 steps all along (it is never redrawn in blocks)"
    )
    func anOrderRunsOnWhileTheKeysAreHeld() throws {
        // 1/32 at 240 BPM: 1 500 frames a step.
        try Self.run(
            ["arp", "--midi-in", "--style", "upDown", "--rate", "1/32", "--bpm", "240"],
            events: [
                "0:903c64", "0:904064", "0:904364", "0:904764", "225000:803c40", "225000:804040",
                "225000:804340", "225000:804740",
            ], seconds: 6.5
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            let notes = Self.notes(run)
            let cycle = ["3c", "40", "43", "47", "43", "40"]
            check.expect(notes.count >= 140, "\(notes.count) steps")
            check.expect(notes.map(\.key) == (0..<notes.count).map { cycle[$0 % 6] }, "\(notes.map(\.key))")
            check.expect(zip(notes, notes.dropFirst()).allSatisfy { $1.frame - $0.frame == 1500 }, "\(notes)")
        }
    }

    @Test(
        "--transport start-stop: a note played in while the transport is stopped is not played, then or when it starts, and --verbose counts it (its note off goes nowhere); a note after the start sounds on the frame it arrives; a key let go while the transport is stopped is released (its note off sent) on the first frame it rolls again"
    )
    func notesWhileStoppedAreIgnored() throws {
        try Self.run(
            ["arp", "N.C.", "--transport", "start-stop"],
            events: [
                "0:903c64", "200:803c40", "24000:start", "72000:904064", "72200:804040", "96000:904364", "120000:stop",
                "130000:804340", "150000:start",
            ], seconds: 4.5
        ) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            check.expect(
                run.result.standardError.contains(
                    "MIDI input: 0 frames from arrival to sound, 0 messages late, 1 notes ignored while the transport "
                        + "was stopped, 0 dropped with the inbox full\n"), "\(run.result.standardError)")
            let sent = { (bytes: String) in run.sent.first { $0.bytes == bytes }?.frame ?? -1 }
            guard let restart = run.sent.last(where: { $0.bytes == "start" })?.frame else {
                return check.expect(false, "no start sent: \(run.sent)")
            }
            let notes = run.midi.filter { $0.bytes.hasPrefix("9") || $0.bytes.hasPrefix("8") }
            check.expect(notes.map(\.bytes) == ["90 40 64", "80 40 40", "90 43 64", "80 43 40"], "\(run.midi)")
            check.expect(
                notes.prefix(3).map(\.frame) == [sent("90 40 64"), sent("80 40 40"), sent("90 43 64")], "\(run.midi)")
            // Key 43's release: on the first frame of the first cycle that rolls again (the server's periods start on
            // multiples of 256), within a few periods of the start.
            let released = notes.count == 4 ? notes[3].frame : -1
            check.expect(
                released % 256 == 0 && released >= restart && released - restart < 8 * 256,
                "released at \(released), started at \(restart)")
            // The sounds: each key on its frame (the instrument's first non-zero sample within 64 frames), and the held
            // voice going on, released, where the transport rolls again.
            check.expect(run.sounds.count >= 2 && run.sounds.count <= 3, "\(run.sounds)")
            let onsets = [sent("90 40 64"), sent("90 43 64")]
            check.expect(
                zip(run.sounds, onsets).allSatisfy { $0 - $1 >= 0 && $0 - $1 < 64 }
                    && run.sounds.dropFirst(2).allSatisfy { $0 == released },
                "\(run.sounds), keys at \(onsets)")
        }
    }

    @Test(
        "A key still held when the command is stopped (Ctrl-C) is released: its note off goes out on midi_out before the command ends"
    )
    func heldKeyReleasedAtStop() throws {
        try Self.run(["arp", "N.C."], events: ["0:903c64"], seconds: 2, interrupting: true) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            let notes = run.midi.filter { $0.bytes.hasPrefix("9") || $0.bytes.hasPrefix("8") }
            check.expect(notes.map(\.bytes) == ["90 3c 64", "80 3c 40"], "\(run.midi)")
            check.expect(notes.first?.frame == run.sent.first?.frame, "\(run.midi), sent \(run.sent)")
        }
    }

    @Test(
        "arp --midi-in refusals: with chords (64), without --driver jack (64), --latch without --midi-in (64), no chords and no --midi-in (64)"
    )
    func refusals() throws {
        let cases: [([String], String)] = [
            (["arp", "C", "--midi-in", "--driver", "jack"], "metronome: error: give chords or --midi-in, not both\n"),
            (
                ["arp", "--midi-in"],
                "metronome: error: --midi-in arpeggiates the keys held on JACK's midi_in: it needs --driver jack and no --output\n"
            ),
            (["arp", "C", "--latch"], "metronome: error: --latch applies only with --midi-in\n"),
            (
                ["arp"],
                "metronome: error: give the chords to arpeggiate (\"C Am F G\"), or --midi-in with --driver jack\n"
            ),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == message, "\(arguments)")
        }
    }
}

/// Peers/jack_recorder.py ended, or did not connect within its time (`JackMIDIInputTests.startRecorder`).
struct JackRecorderNotReady: Error, CustomStringConvertible {
    var status: Int32
    var errorOutput: String
    var description: String { "jack_recorder.py did not connect its ports (status \(status)): \(errorOutput)" }
}
