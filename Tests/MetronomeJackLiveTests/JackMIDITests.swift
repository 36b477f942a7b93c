import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// What `jack_midi_dump -a` printed, or `FrameCapture` read: each message with the absolute frame it arrived on.
struct DumpedMIDI: Equatable, CustomStringConvertible {
    var frame: Int
    var bytes: String

    /// Parses lines such as "  29952: fa", " 124440: f2 20 00" and "  30464: 99 4c 7f note on  (channel  9): …"
    /// (the bytes are the two-digit hexadecimal words before the description).
    static func parse(_ text: String) -> [DumpedMIDI] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let frame = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            let bytes = parts[1].split(separator: " ").prefix { $0.count == 2 && UInt8($0, radix: 16) != nil }
            return DumpedMIDI(frame: frame, bytes: bytes.joined(separator: " "))
        }
    }

    var description: String { "\(frame): \(bytes)" }
}

/// MIDI out (`midi_out`) on a private jackd, read by Debian's jack_midi_dump (a reader no one here wrote) and, where a
/// reader's missed cycle must not read as our clock off its frames, on the server's frame clock (`FrameCapture`).
@Suite("JACK: MIDI clock and transport out, read by jack_midi_dump and on the server's frame clock", .serialized)
struct JackMIDITests {
    /// Starts `jack_midi_dump -a` (client midi-monitor) and waits for its input port.
    static func startDump(on server: JackServer) throws -> ChildProcess {
        let dump = try ChildProcess("/usr/bin/jack_midi_dump", ["-a"], environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("midi-monitor:input", on: server, of: dump)
        return dump
    }

    /// Stops the dump and returns what it read.
    static func finish(_ dump: ChildProcess) -> [DumpedMIDI] {
        usleep(200_000)
        dump.send(SIGTERM)
        _ = dump.wait()
        return DumpedMIDI.parse(dump.output)
    }

    /// Runs `metronome ARGUMENTS --driver jack --no-connect --midi-connect midi-monitor:input --quiet` to its end
    /// while jack_midi_dump reads `midi_out`; returns the command's result and what the dump read.
    static func played(_ arguments: [String], on server: JackServer) throws -> (CommandResult, [DumpedMIDI]) {
        let dump = try startDump(on: server)
        let result = try ChildProcess(
            CommandRunner.executable,
            arguments + ["--driver", "jack", "--no-connect", "--midi-connect", "midi-monitor:input", "--quiet"],
            environment: server.clientEnvironment
        ).wait()
        return (result, finish(dump))
    }

    /// The MIDI clock's frames from `start` on for `metronome 127`: clock n on round(n × 944.88…).
    static func clockFrame(_ clock: Int) -> Int { Int((Double(clock) * 60.0 * 48_000 / (127 * 24)).rounded()) }

    @Test(
        "metronome 127 --driver jack --duration 2: Start and the first clock on the first frame, clock n on round(n × 944.88…) frames from it (the interval is fractional), none at or past 2 s, Stop on 2 s exactly",
        arguments: [64, 256, 1024])
    func clockInClosedForm(period: Int) throws {
        // Read on the server's frame clock by a client of the test process (`FrameCapture`): a cycle the server ran
        // without calling the reader is a hole at a known place, so a message due in it is unheard, not moved, and
        // every message read is held to its frame. (jack_midi_dump -a, read before, stamps a message with a count of
        // its own cycles: one it missed moved all it read after a period earlier, and at a 64-frame period it missed
        // one in most runs, five runs in a row in one JACK lane.) A cycle the server ran without calling our client
        // moves what we send a period later: `--verbose` lists where (`JackOutput.missedCycles`), and what came
        // after is held to the frames that rule puts it on, no callback of ours over half a period. A run whose
        // frames are off otherwise is repeated only when late cycles not ours, from the reader's start, explain how
        // far (a period each: `JackServer.outsideCause`); otherwise it fails.
        let (result, read) = try repeatedOnlyForOutsideCauses(attempts: period == 64 ? 5 : 3) {
            let server = try JackServer(period: period)
            let window = server.logMark
            // Its MIDI input, to which the command connects midi_out.
            let capture = try FrameCapture(server: server.name, ports: [], midiPorts: [nil], seconds: 20, rate: 48_000)
            let result = try ChildProcess(
                CommandRunner.executable,
                [
                    "127", "--duration", "2", "--verbose", "--driver", "jack", "--no-connect", "--midi-connect",
                    "frame-capture:midi_in_1", "--quiet",
                ], environment: server.clientEnvironment
            ).wait()
            usleep(200_000)
            let recording = try capture.finish(waiting: false)
            let runs = JackRunFigures.missedCycles(result.standardError, period: period)
            let (problem, framesOff) = Self.clockProblem(recording, period: period, runs: runs)
            print("period \(period): \(recording.missedLine); cycles played without our frames: \(runs)")
            return LiveAttempt(
                (result, recording),
                outsideCause: server.outsideCause(
                    failing: problem, framesOff: framesOff, since: window,
                    ours: JackServer.ClientTiming(verbose: result.standardError)))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(JackRunFigures.messages(result.standardError).isEmpty, "\(result.standardError)")
        let messages = Self.messages(read)
        try #require(messages.count > 2, "\(messages)")
        #expect(messages[0].bytes == "fa")
        let runs = JackRunFigures.missedCycles(result.standardError, period: period)
        #expect(Self.clockProblem(read, period: period, runs: runs).problem == nil)
        // A cycle the server ran without us is held to its frames above, not excused: no callback of ours overran.
        let ours = try #require(JackServer.ClientTiming(verbose: result.standardError), "\(result.standardError)")
        #expect(ours.slowOfOurOwn == 0, "\(ours)")
    }

    @Test(
        "The closed form weighs the player's own missed cycles from its --verbose line: clocks after one moved exactly 64 frames pass; unlisted, or listed a clock later, they fail"
    )
    func closedFormWeighsListedShifts() {
        // Start at frame 1100 of the server, clocks 0…101 on the form, from clock 40 on (and the Stop) 64 frames later.
        let start = 1100
        func recording(shiftFrom first: Int) -> FrameCapture.Recording {
            let clocks = (0...101).map { clock in
                (port: 0, frame: start + Self.clockFrame(clock) + (clock >= first ? 64 : 0), bytes: [UInt8(0xf8)])
            }
            return FrameCapture.Recording(
                channels: [], firstFrame: 1000, missed: [],
                midi: [(port: 0, frame: start, bytes: [0xfa])] + clocks
                    + [(port: 0, frame: start + 96_064, bytes: [0xfc])],
                channelLength: 200_000)
        }
        let verbose =
            "metronome: process callbacks: 1500\n"
            + "metronome: cycles the server ran without calling us: 1 (this client's, at frame times: "
            + "\(start + Self.clockFrame(40) + 64)×1)\nmetronome: transport starts joined late: 0\n"
        let runs = JackRunFigures.missedCycles(verbose, period: 64)
        #expect(runs.map(\.frame) == [start + Self.clockFrame(40) + 64] && runs.map(\.by) == [64])
        #expect(runs.map(\.moved) == [true])
        #expect(Self.clockProblem(recording(shiftFrom: 40), period: 64, runs: runs).problem == nil)
        #expect(Self.clockProblem(recording(shiftFrom: 40), period: 64).problem != nil)
        #expect(Self.clockProblem(recording(shiftFrom: 41), period: 64, runs: runs).problem != nil)
        let late = JackRunFigures.missedCycles(
            "metronome: cycles the server ran without calling us: 2 (this client's, at frame times: 5000×1 late, "
                + "9000×1)\n", period: 64)
        #expect(late.map(\.frame) == [5000, 9000] && late.map(\.moved) == [false, true])
        let none = "metronome: cycles the server ran without calling us: 0\n"
        #expect(JackRunFigures.missedCycles(none, period: 64).isEmpty)
    }

    /// The MIDI messages a frame capture read, as jack_midi_dump would print them.
    static func messages(_ recording: FrameCapture.Recording) -> [DumpedMIDI] {
        recording.midi.map { message in
            DumpedMIDI(
                frame: message.frame,
                bytes: message.bytes.map { String(format: "%02x", $0) }.joined(separator: " "))
        }
    }

    /// What is wrong with the Start, clocks and Stop of `metronome 127 --duration 2` that `clockInClosedForm` checks
    /// (nil when nothing is), and how far their frames are off the closed form from the Start (for
    /// `JackServer.outsideCause`): the Start read first; the clocks read exactly those due on round(n × 944.88…)
    /// frames from it, in order, each once, but the ones due in frames the reader did not hear; the Stop last, on
    /// 96 000 (or due there unheard); nothing else. A Start the reader missed is not told apart: everything is then
    /// measured from a clock, and the run fails or is repeated by the verdict on its frames.
    ///
    /// `runs`: where the server played cycles without the player's frames (`JackOutput.missedCycles`, as `--verbose`
    /// lists them: the frame time of the cycle after each run, its length in frames, whether it moved what came
    /// after). What is read in a run's frames is not the player's fresh output and is left out, and a message due in
    /// them is unheard; a run after the Start that moved what came after moves every later message by its length,
    /// the product's rule followed to the frame.
    static func clockProblem(
        _ recording: FrameCapture.Recording, period: Int, runs: [(frame: Int, by: Int, moved: Bool)] = []
    ) -> (problem: String?, framesOff: Int) {
        let holes = runs.map { $0.frame - $0.by..<$0.frame }
        let read = messages(recording).filter { message in !holes.contains { $0.contains(message.frame) } }
        guard let first = read.first else { return ("nothing read", 0) }
        let start = first.frame
        let shifts = runs.filter(\.moved)
        func unheard(_ frame: Int) -> Bool {
            recording.unheard(frame: frame) || holes.contains { $0.contains(frame) }
        }
        // A frame from the Start, moved by the runs of missed cycles it came after: a run at frame time T that moved
        // by d frames moves what was due from T − d on (the frames the missed cycles would have heard).
        func moved(_ frame: Int) -> Int {
            var by = 0
            for shift in shifts.sorted(by: { $0.frame < $1.frame })
            where shift.frame - shift.by > start && start + frame + by >= shift.frame - shift.by {
                by += shift.by
            }
            return frame + by
        }
        let stop = moved(96_000)
        let frames = read.map { $0.frame - start }
        let clocks = read.filter { $0.bytes == "f8" }.map { $0.frame - start }
        let expected = (0...101).map { moved(clockFrame($0)) }
        let framesOff = JackRunFigures.framesOff(
            frames, period: period, nearest: JackRunFigures.nearest(in: expected + [stop]))
        let offGrid = clocks.filter { !expected.contains($0) }
        let unread = expected.filter { !clocks.contains($0) }
        let lost = unread.filter { !unheard(start + $0) }
        // Every clock due and heard, once each and in order: a clock sent twice, or out of order, is not the form.
        let heardDue = expected.filter { !unread.contains($0) }
        let others = read.filter { $0.bytes != "f8" }
        let stopUnheard = unheard(start + stop)
        let othersPlaced =
            others.map(\.bytes) == ["fa", "fc"] && others[1].frame == start + stop && read.last?.bytes == "fc"
            || (stopUnheard && others.map(\.bytes) == ["fa"])
        guard first.bytes == "fa", offGrid.isEmpty, lost.isEmpty, clocks == heardDue, othersPlaced else {
            return (
                "Start, clocks and Stop not in closed form from the first message read (clocks off the form "
                    + "\(offGrid), due and not read where the reader heard \(lost), \(unread.count - lost.count) due "
                    + "unheard): \(read)", framesOff
            )
        }
        return (nil, 0)
    }

    @Test(
        "serve --driver jack steered over OSC: pause sends Stop on a beat, continue sends the song position of that beat and Continue with the next clock on the same frame, a locate to bar 3 sends Stop, F2 20 00 and Continue on a downbeat, quit sends Stop; every clock 1000 frames (120 BPM) after the one before while rolling"
    )
    func transportOverOSC() throws {
        // jack_midi_dump stamps what it reads with its own cycles: a cycle the server ran without calling it loses
        // the clock in it and moves every later one a period earlier (an interval of 2 × 1000 − 256 frames), as a
        // cycle of ours missed moves them a period later. Such a run is repeated only when late cycles not ours
        // explain each period off (`JackServer.outsideCause`); otherwise it fails with its figures.
        let checked = try repeatedOnlyForOutsideCauses {
            // The server stays in here: the next run's has the same name.
            let server = try JackServer(period: 256)
            let dump = try Self.startDump(on: server)
            let window = server.logMark
            let served = try Self.steerOverOSC(on: server)
            let dumped = Self.finish(dump)
            var check = RunChecks()
            let framesOff = Self.checkTransport(dumped, served: served, into: &check)
            return server.liveRun(
                check, failing: check.summary, framesOff: framesOff, since: window, verbose: served.standardError)
        }
        checked.record()
    }

    /// Starts `serve --driver jack` with MIDI out to the dump and steers it over OSC: pause after a second, continue
    /// 0.6 s later, a locate to bar 3 a second after that, quit 3 s on; returns its result.
    static func steerOverOSC(on server: JackServer) throws -> CommandResult {
        let port = try UDPPort().port
        let serve = try ChildProcess(
            CommandRunner.executable,
            [
                "serve", "--driver", "jack", "--bpm", "120", "--no-connect", "--midi-connect", "midi-monitor:input",
                "--osc", "127.0.0.1:\(port)", "--quiet", "--verbose",
            ],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:midi_out", on: server, of: serve)
        func send(_ arguments: String...) throws {
            let sent = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port)] + arguments).wait()
            #expect(sent.status == 0, "\(arguments): \(sent.standardError)")
        }
        usleep(1_000_000)
        try send("/metronome/pause")
        usleep(600_000)
        try send("/metronome/continue")
        usleep(1_000_000)
        try send("/metronome/locate", "i", "3")
        // The locate waits for the next bar (2 s at most), then plays a while.
        usleep(3_000_000)
        try send("/metronome/quit")
        return serve.wait()
    }

    /// Checks what `transportOverOSC` read into `check`; returns how far the clocks while rolling are off one every
    /// 1000 frames (`JackServer.framesOff`).
    static func checkTransport(_ dumped: [DumpedMIDI], served: CommandResult, into check: inout RunChecks) -> Int {
        check.expect(served.status == 0, "\(served.standardError)")
        let transport = dumped.filter { $0.bytes != "f8" }
        guard transport.count == 8 else {
            check.expect(false, "\(transport)")
            return 0
        }
        let start = transport[0].frame
        check.expect(
            transport.map(\.bytes).enumerated().allSatisfy { index, bytes in
                index == 2
                    ? bytes.hasPrefix("f2 ") : bytes == ["fa", "fc", "", "fb", "fc", "f2 20 00", "fb", "fc"][index]
            }, "\(transport)")
        // Paused on a beat: a whole number of 24 000-frame beats from the start; continued from that beat's
        // sixteenth (4 a beat), its bytes least significant first.
        let paused = transport[1].frame - start
        check.expect(paused > 0 && paused % 24_000 == 0, "paused at \(paused)")
        let sixteenth = paused / 6_000
        let position = String(format: "f2 %02x %02x", sixteenth & 0x7F, sixteenth >> 7)
        check.expect(transport[2].bytes == position, "\(transport[2]), not \(position)")
        check.expect(transport[3].frame == transport[2].frame, "\(transport)")
        // The locate: Stop, song position and Continue on one frame, a whole number of bars (96 000 frames in 4/4)
        // after the continue, which went on from a beat of the bar.
        check.expect(
            transport[4].frame == transport[5].frame && transport[5].frame == transport[6].frame, "\(transport)")
        // The clocks while rolling: from each start or continue to the next stop, one every 1000 frames, the first
        // on the start's or the continue's frame.
        var gaps: [[Int]] = []
        for (from, to) in [(0, 1), (3, 4), (6, 7)] {
            let clocks = dumped.filter {
                $0.bytes == "f8" && $0.frame >= transport[from].frame && $0.frame < transport[to].frame
            }
            .map(\.frame)
            check.expect(clocks.first == transport[from].frame, "\(from): \(clocks.prefix(3))")
            check.expect(clocks.count > 10, "\(from): \(clocks.count) clocks; \(transport)")
            gaps.append(zip(clocks, clocks.dropFirst()).map { $1 - $0 })
            check.expect(gaps.last?.allSatisfy { $0 == 1000 } == true, "\(from): \(clocks)")
            // Up to the stop, which comes after the last clock and before the next.
            let gap = transport[to].frame - (clocks.last ?? 0)
            check.expect(gap > 0 && gap <= 1000, "\(from): \(clocks.suffix(3)); \(transport)")
        }
        // No clock while paused.
        check.expect(
            !dumped.contains { $0.bytes == "f8" && $0.frame > transport[1].frame && $0.frame < transport[3].frame },
            "a clock while paused: \(dumped)")
        return JackServer.framesOff([gaps.flatMap { $0 }], every: 1000, period: 256)
    }

    @Test(
        "chord Cmaj7 and arp \"C Am\" with --midi-notes: the chord's four notes on one frame, channel 1 (C E G B), their note offs; the arpeggio's notes one sixteenth (6000 frames at 120 BPM) apart, each off before the next on"
    )
    func chordAndArpeggioNotes() throws {
        let server = try JackServer(period: 256)
        let (chord, chordDump) = try Self.played(["chord", "Cmaj7", "--midi-notes", "--duration", "1"], on: server)
        #expect(chord.status == 0, "\(chord.standardError)")
        let ons = chordDump.filter { $0.bytes.hasPrefix("90 ") }
        #expect(ons.count == 4, "\(chordDump)")
        #expect(Set(ons.map(\.frame)).count == 1, "\(ons)")
        let keys = ons.compactMap { (on: DumpedMIDI) -> Int? in Int(on.bytes.split(separator: " ")[1], radix: 16) }
            .sorted()
        let intervals = keys.map { (key: Int) -> Int in key - keys[0] }
        #expect(keys.count == 4 && intervals == [0, 4, 7, 11] && keys[0] % 12 == 0, "\(keys)")
        #expect(chordDump.filter { $0.bytes.hasPrefix("80 ") }.count == 4, "\(chordDump)")

        let (arp, arpDump) = try Self.played(
            ["arp", "C Am", "--rate", "1/16", "--bpm", "120", "--bars", "1", "--midi-notes"], on: server)
        #expect(arp.status == 0, "\(arp.standardError)")
        let steps = arpDump.filter { $0.bytes.hasPrefix("90 ") }
        #expect(steps.count >= 12, "\(arpDump)")
        let evenSteps = zip(steps, steps.dropFirst()).allSatisfy { (pair: (DumpedMIDI, DumpedMIDI)) -> Bool in
            pair.1.frame - pair.0.frame == 6000
        }
        #expect(evenSteps, "\(steps)")
        // Every note's off comes after its on and no later than the next step's on (gate below 1).
        for (index, step) in steps.enumerated() {
            let key = step.bytes.split(separator: " ")[1]
            let off = arpDump.first { $0.bytes.hasPrefix("80 \(key)") && $0.frame > step.frame }
            let next = index + 1 < steps.count ? steps[index + 1].frame : Int.max
            let offInTime = off.map { (noteOff: DumpedMIDI) -> Bool in noteOff.frame <= next }
            #expect(offInTime == true, "\(step) off \(String(describing: off))")
        }
    }

    @Test(
        "The server killed and started again under metronome 127 --driver jack --midi-connect midi-monitor:input --duration 6: the reader, started on the new server after ours is back, is connected late (said in a line) and reads Stop, the song position of a sixteenth and Continue on one frame, then every clock from that sixteenth on in closed form, round(n × 944.88…) frames on one offset, up to the Stop at 6 s on the same offset"
    )
    func resyncAfterServerReturn() throws {
        // A run whose frames are off is repeated only when late cycles not ours on the new server, from the reader's
        // start, explain how far (`JackServer.outsideCause`); otherwise it fails.
        // The server stays in the closure: the next run's has the same name.
        let (result, dumped, serverName, missed) = try repeatedOnlyForOutsideCauses {
            let (result, dumped, server, window) = try Self.playAcrossRestart()
            let (problem, framesOff) = Self.resyncProblem(dumped)
            let ours = JackServer.ClientTiming(verbose: result.standardError)
            return LiveAttempt(
                (result, dumped, server.name, JackRunFigures.unexplainedMissedCycles(ours, on: server)),
                outsideCause: server.outsideCause(failing: problem, framesOff: framesOff, since: window, ours: ours))
        }
        #expect(missed == nil)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        try #require(lines.count > 4, "\(lines)")
        #expect(lines[0].hasPrefix("metronome: the JACK server '\(serverName)' went away: "), "\(lines)")
        #expect(lines[0].hasSuffix("; retrying for 30 s (--reconnect-timeout)"), "\(lines)")
        let backLine: String =
            "metronome: the JACK server '\(serverName)' is back; playing on the same beat grid; "
            + "midi-monitor:input not there yet: connecting when it is"
        #expect(lines[1] == backLine, "\(lines)")
        #expect(lines[2] == "metronome: connected metronome:midi_out to midi-monitor:input", "\(lines)")
        // Then --verbose's report, and nothing dropped.
        #expect(lines[3].hasPrefix("metronome: JACK: client 'metronome' on server '\(serverName)'"), "\(lines)")
        #expect(lines.contains("metronome: MIDI messages dropped: 0"), "\(lines)")

        // The reader may have been connected after the new client sounded: the clocks already scheduled then come
        // before the resync. From the resync on: Stop, F2 and Continue on one frame, clocks, Stop.
        let stop = try #require(dumped.firstIndex { $0.bytes != "f8" }, "\(dumped)")
        let resync = Array(dumped[stop...])
        let transport = resync.filter { $0.bytes != "f8" }
        try #require(transport.count == 4, "\(transport)")
        #expect(transport[0].bytes == "fc" && transport[2].bytes == "fb" && transport[3].bytes == "fc", "\(transport)")
        #expect(Set(transport.prefix(3).map(\.frame)).count == 1, "\(transport)")
        let words = transport[1].bytes.split(separator: " ").compactMap { Int($0, radix: 16) }
        try #require(words.count == 3 && words[0] == 0xF2, "\(transport)")
        let sixteenth = words[1] | words[2] << 7
        // Our mixer's frame 0 is the song's top; 6 s is its frame 288 000, where the last Stop is: the offset from
        // our frames to the new server's. Clock n of the song is on round(n × 944.88…) of ours.
        let offset = transport[3].frame - 288_000
        let frame = { (clock: Int) in Self.clockFrame(clock) + offset }
        // The clocks go on from the sixteenth: clock 6 × sixteenth first, then every one before 288 000 (304 is the
        // last, on 287 244).
        let clocks = resync.filter { $0.bytes == "f8" }.map(\.frame)
        #expect(sixteenth > 0 && 6 * sixteenth <= 304, "sixteenth \(sixteenth)")
        #expect(clocks == (6 * sixteenth...304).map(frame), "sixteenth \(sixteenth), offset \(offset): \(clocks)")
        // The Continue is on the first frame the scheduler had not scheduled when it was asked: after the sixteenth
        // before, at or before this one.
        #expect(transport[2].frame > frame(6 * sixteenth - 6) && transport[2].frame <= frame(6 * sixteenth))
        // Every clock before the resync was one of the same grid: the counting before it went on unbroken.
        let before = dumped[..<stop].map(\.frame)
        let firstBefore =
            before.first.map { (first: Int) -> Int in
                Int(((Double(first - offset)) * 127 * 24 / (60.0 * 48_000)).rounded())
            } ?? 0
        let expectedBefore = before.indices.map { (index: Int) -> Int in frame(firstBefore + index) }
        #expect(before == expectedBefore, "\(before)")
    }

    /// What is wrong with the clocks a reader read across the restart in `resyncAfterServerReturn` (every clock on
    /// the closed form's grid, on the offset the last Stop gives, 6 s on) — nil when nothing is — and how far they are
    /// off it (for `JackServer.outsideCause`).
    static func resyncProblem(_ dumped: [DumpedMIDI]) -> (problem: String?, framesOff: Int) {
        guard let last = dumped.last, last.bytes == "fc" else { return ("no Stop last: \(dumped)", 0) }
        let offset = last.frame - 288_000
        let grid = (0...304).map { clockFrame($0) + offset }
        let clocks = dumped.filter { $0.bytes == "f8" }.map(\.frame)
        let framesOff = JackRunFigures.framesOff(clocks, period: 256, nearest: JackRunFigures.nearest(in: grid))
        return (framesOff == 0 ? nil : "clocks off the closed form's grid by \(framesOff) frames: \(clocks)", framesOff)
    }

    /// `metronome 127 --driver jack --midi-connect midi-monitor:input --duration 6 --verbose` with a reader on the
    /// first server, which is killed after a second and started again; a new reader is started once ours is back.
    /// Returns our result, what the new reader read, the server, and where its log was when the new reader started.
    static func playAcrossRestart() throws -> (CommandResult, [DumpedMIDI], JackServer, JackServer.LogMark) {
        let server = try JackServer(period: 256)
        let first = try startDump(on: server)
        let ours = try ChildProcess(
            CommandRunner.executable,
            [
                "127", "--driver", "jack", "--no-connect", "--midi-connect", "midi-monitor:input", "--duration", "6",
                "--verbose",
            ],
            environment: server.clientEnvironment)
        try JackCommandTests.waitForPort("metronome:midi_out", on: server, of: ours)
        usleep(1_000_000)
        server.kill()
        first.send(SIGTERM)
        _ = first.wait()
        usleep(500_000)
        // No client of the test's opens before ours is back (`JackServer.start(listing:)`).
        try server.start(listing: false)
        // Ours is back (its line says so) before the reader's port exists: the connection has to be made late.
        try JackTransportReconnectTests.waitForReturn(of: ours, on: server)
        let window = server.logMark
        let dump = try startDump(on: server)
        let result = ours.wait()
        return (result, finish(dump), server, window)
    }

    @Test(
        "--midi-connect to a port that does not exist: exit 69 in one line; --midi-connect or --midi-notes without --driver jack: exit 64"
    )
    func refusals() throws {
        let server = try JackServer()
        let missing = try ChildProcess(
            CommandRunner.executable, ["120", "--driver", "jack", "--midi-connect", "nobody:input"],
            environment: server.clientEnvironment
        ).wait()
        #expect(missing.status == 69)
        #expect(
            missing.standardError
                == "metronome: error: the JACK server '\(server.name)' has no port 'nobody:input' (jack_lsp lists them)\n"
        )
        let pulse = try ChildProcess(CommandRunner.executable, ["120", "--midi-connect", "x:y"]).wait()
        #expect(pulse.status == 64)
        #expect(pulse.standardError == "metronome: error: --midi-connect applies only with --driver jack\n")
        let notes = try ChildProcess(CommandRunner.executable, ["120", "--midi-notes"]).wait()
        #expect(notes.status == 64)
        #expect(notes.standardError == "metronome: error: --midi-notes applies only with --driver jack\n")
    }
}

/// Sound and MIDI of one client recorded on the server's frame clock (Peers/jack_recorder.py, JACK-Client).
@Suite("JACK: --midi-notes, the click's notes on the frames of its sound", .serialized)
struct JackMIDINotesTests {
    static let recorder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers/jack_recorder.py").path

    @Test(
        "metronome 240 --subdivide 2 --driver jack --midi-notes: every click's General MIDI note (76 accent, 77 beat, 42 subdivision, channel 10) on the frame its sound starts, each note off a 32nd note (1500 frames at 240 BPM) later"
    )
    func notesOnTheFramesOfTheSound() throws {
        // Where the click's first non-zero sample lies from its frame: the first onset of an offline render.
        let directory = NSTemporaryDirectory() + "metronome-midi-notes-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rendered = try CommandRunner.run(["240", "--bars", "1", "--output", directory + "/click.wav"])
        #expect(rendered.status == 0, "\(rendered.standardError)")
        let lead = try #require(onsets(try AudioFileReader.read(path: directory + "/click.wav").channels[0]).first)

        // A run whose notes or sounds are off is repeated only when late cycles not ours while the recorder ran
        // explain how far (`JackServer.outsideCause`); otherwise it fails.
        let (result, recorded) = try repeatedOnlyForOutsideCauses {
            let server = try JackServer(period: 256)
            let ours = try ChildProcess(
                CommandRunner.executable,
                [
                    "240", "--subdivide", "2", "--driver", "jack", "--no-connect", "--midi-notes", "--duration", "3.5",
                    "--verbose",
                ],
                environment: server.clientEnvironment)
            try JackCommandTests.waitForPort("metronome:midi_out", on: server, of: ours)
            let window = server.logMark
            let recorded = try ChildProcess(
                "/usr/bin/env",
                ["python3", Self.recorder, server.name, "metronome:out_1", "metronome:midi_out", "2"],
                environment: server.clientEnvironment
            ).wait()
            let result = ours.wait()
            let (problem, framesOff) = Self.problem(Self.Heard(recorded.standardOutput), lead: lead, period: 256)
            return server.liveRun(
                (result, recorded), failing: problem, framesOff: framesOff, since: window,
                verbose: result.standardError)
        }
        #expect(result.status == 0, "\(result.standardError)")
        try #require(recorded.status == 0, "\(recorded.standardError)")
        let heard = Self.Heard(recorded.standardOutput)
        let (sounds, notes, offs) = (heard.sounds, heard.notes, heard.offs)
        // Both from the second of each (the recorder joined at any moment), while the command still played.
        try #require(notes.count >= 12, "\(notes)")
        let noteFrames = notes.map(\.frame)
        let soundsInRange = sounds.filter { $0 > noteFrames[0] && $0 <= noteFrames.last! + lead }
        let soundFrames = noteFrames.dropFirst().map { (frame: Int) -> Int in frame + lead }
        #expect(soundsInRange == soundFrames, "sounds \(sounds), notes \(noteFrames)")
        // Eighths at 240 BPM: 6000 frames apart; the keys follow the bar (accent, subdivision, beat, subdivision …).
        let eighths = zip(noteFrames, noteFrames.dropFirst()).allSatisfy { (pair: (Int, Int)) -> Bool in
            pair.1 - pair.0 == 6000
        }
        #expect(eighths, "\(noteFrames)")
        let keys = notes.map(\.key)
        #expect(Set(keys) == ["4c", "4d", "2a"], "\(keys)")
        for (index, key) in keys.enumerated() where key == "4c" {
            let bar = Array(keys[index..<min(keys.count, index + 8)])
            let barKeys: [String] = ["4c", "2a", "4d", "2a", "4d", "2a", "4d", "2a"]
            #expect(bar == Array(barKeys.prefix(bar.count)), "\(bar)")
        }
        #expect(notes.filter { $0.key == "4c" }.allSatisfy { $0.velocity == "7f" })
        // Every note off 1500 frames after its note on (a 32nd note at 240 BPM: an eighth of 12 000).
        let expectedOffs = Set(noteFrames.map { $0 + 1500 })
        let offsInRange = offs.filter { $0 > noteFrames[0] && $0 < noteFrames.last! }
        #expect(
            !offsInRange.isEmpty && offsInRange.allSatisfy { expectedOffs.contains($0) },
            "offs \(offs), notes \(noteFrames)")
        #expect(offs.count >= notes.count - 1)
    }

    /// What Peers/jack_recorder.py printed: the onsets, the click notes' ons (frame, key, velocity), their offs.
    struct Heard {
        var sounds: [Int]
        var notes: [(frame: Int, key: String, velocity: String)]
        var offs: [Int]

        init(_ output: String) {
            let lines = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            sounds = lines.filter { $0[0] == "audio" }.compactMap { Int($0[1]) }
            notes = lines.filter { $0[0] == "midi" && $0[2] == "99" }.compactMap { line in
                Int(line[1]).map { (frame: $0, key: line[3], velocity: line[4]) }
            }
            offs = lines.filter { $0[0] == "midi" && $0[2] == "89" }.compactMap { Int($0[1]) }
        }
    }

    /// What is wrong with the frames `notesOnTheFramesOfTheSound` checks (nil when nothing is: at least 12 notes,
    /// 6000 frames apart, each sound `lead` after its note), and how far they are off (for
    /// `JackServer.outsideCause`): the notes' intervals' distance from whole eighths, and a period for each sound
    /// not on a note or note without its sound (a cycle the recorder missed loses both of that period).
    static func problem(_ heard: Heard, lead: Int, period: Int) -> (problem: String?, framesOff: Int) {
        let noteFrames = heard.notes.map(\.frame)
        guard let first = noteFrames.first, let last = noteFrames.last else { return ("no note", 0) }
        let gaps = zip(noteFrames, noteFrames.dropFirst()).map { $1 - $0 }
        let sounds = Set(heard.sounds.filter { $0 > first && $0 <= last + lead })
        let unmatched = sounds.symmetricDifference(noteFrames.dropFirst().map { $0 + lead })
        let framesOff = JackServer.framesOff([gaps], every: 6000, period: period) + unmatched.count * period
        guard noteFrames.count >= 12, gaps.allSatisfy({ $0 == 6000 }), unmatched.isEmpty else {
            return ("notes \(noteFrames), sounds \(heard.sounds)", framesOff)
        }
        return (nil, 0)
    }
}
