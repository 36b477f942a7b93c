import Foundation
import MetronomeTestSupport
import Testing

/// `--follow midi-clock`: a MIDI clock sent into `midi_in` by one JACK-Client client (Peers/jack_clock_sender.py, on
/// exact frames, with jitter of a known shape) and our sound and `midi_out` recorded by another
/// (Peers/jack_recorder.py), both on the server's frame clock.
@Suite("JACK: following a MIDI clock", .serialized)
struct JackMIDIClockFollowTests {
    /// What the sender sent and meant, and what we sounded and sent on `midi_out`, by frame.
    struct Run {
        var result: CommandResult
        var base = 0
        /// Each clock's ideal exact frame (before jitter), by index.
        var ideal: [Double] = []
        var sent: [(frame: Int, bytes: String)] = []
        var sounds: [Int] = []
        /// Our click notes on midi_out (`--midi-notes`): frame and the note on's bytes.
        var notes: [(frame: Int, bytes: String)] = []

        /// The frame a message was sent on.
        func sentFrame(_ bytes: String) -> Int? { sent.first { $0.bytes == bytes }?.frame }
    }

    /// Runs `metronome ARGUMENTS --driver jack --no-connect --midi-notes --follow midi-clock --verbose` on a server
    /// with period 256, the sender playing `items` into `metronome:midi_in` for `seconds` while the recorder records,
    /// then Ctrl-C; applies `checks`. A run whose checks fail is repeated only when late cycles not ours while the
    /// recorder ran explain it (`JackServer.outsideCause`); never silently.
    static func run(
        _ arguments: [String], items: [String], seconds: Double, sourceLocation: SourceLocation = #_sourceLocation,
        checks: (Run, inout RunChecks) -> Void
    ) throws {
        let (checked, missed) = try repeatedOnlyForOutsideCauses(sourceLocation: sourceLocation) {
            let server = try JackServer(period: 256)
            let ours = try ChildProcess(
                CommandRunner.executable,
                arguments + [
                    "--driver", "jack", "--no-connect", "--midi-notes", "--follow", "midi-clock", "--verbose",
                ],
                environment: server.clientEnvironment)
            try JackCommandTests.waitForPort("metronome:midi_in", on: server, of: ours)
            let window = server.logMark
            let peers = JackMIDIInputTests.peers
            let recorder = try ChildProcess(
                "/usr/bin/env",
                [
                    "python3", peers.appendingPathComponent("jack_recorder.py").path, server.name, "metronome:out_1",
                    "metronome:midi_out", String(seconds + 1.5),
                ],
                environment: server.clientEnvironment)
            let sender = try ChildProcess(
                "/usr/bin/env",
                [
                    "python3", peers.appendingPathComponent("jack_clock_sender.py").path, server.name,
                    "metronome:midi_in", String(seconds),
                ] + items,
                environment: server.clientEnvironment
            ).wait()
            let recorded = recorder.wait()
            kill(ours.pid, SIGINT)
            var run = Run(result: ours.wait())
            try #require(sender.status == 0, "\(sender.standardError)")
            try #require(recorded.status == 0, "\(recorded.standardError)")
            for line in sender.standardOutput.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                if words[0] == "base", let frame = Int(words[1]) { run.base = frame }
                if words[0] == "ideal", let frame = Double(words[2]) { run.ideal.append(frame) }
                if words[0] == "sent", let frame = Int(words[1]) { run.sent.append((frame, words[2])) }
            }
            for line in recorded.standardOutput.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard let frame = Int(words[1]) else { continue }
                if words[0] == "audio" { run.sounds.append(frame) }
                if words[0] == "midi", words[2].hasPrefix("99 ") { run.notes.append((frame, words[2])) }
            }
            var checked = RunChecks()
            checks(run, &checked)
            let timing = JackServer.ClientTiming(verbose: run.result.standardError)
            return LiveAttempt(
                (checked, JackRunFigures.unexplainedMissedCycles(timing, on: server)),
                outsideCause: server.outsideCause(failing: checked.summary, framesOff: 0, since: window, ours: timing))
        }
        checked.record()
        #expect(missed == nil, sourceLocation: sourceLocation)
    }

    /// The ideal frame of each beat from the clock after the Start: every 24th clock from it.
    static func beats(_ run: Run, startFrame: Int, count: Int) -> [Double] {
        let first = run.ideal.firstIndex { $0 >= Double(startFrame) - 0.5 } ?? 0
        return (0..<count).compactMap { beat in
            first + 24 * beat < run.ideal.count ? run.ideal[first + 24 * beat] : nil
        }
    }

    @Test(
        "A clean clock at 127 BPM on whole frames, Start at 0.5 s: the first click as soon as can be (within the lookahead), every one after on its clock's frame to within a frame; nothing before the Start; the report counts 0 lost, 0 off the line, 0 changes"
    )
    func cleanClock() throws {
        try Self.run(["127"], items: ["bpm:127", "start@0.5"], seconds: 4) { run, check in
            check.expect(run.result.status == 0, "\(run.result.standardError)")
            guard let start = run.sentFrame("fa") else { return check.expect(false, "no Start sent") }
            let ideal = Self.beats(run, startFrame: start, count: 7)
            let sounds = run.sounds.filter { $0 >= start - 48_000 }
            check.expect(
                sounds.first.map { $0 >= start } ?? false, "a click before the Start: \(sounds), Start \(start)")
            check.expect(sounds.count >= 7, "\(sounds)")
            guard sounds.count >= 7, ideal.count == 7 else { return }
            let lateness = Double(sounds[0]) - ideal[0]
            check.expect(lateness >= 0 && lateness <= 48 * 40, "first click \(lateness) frames after its clock")
            let off = (1..<7).map { Double(sounds[$0]) - ideal[$0] }
            check.expect(off.allSatisfy { abs($0) <= 1 }, "clicks off their clocks (frames): \(off)")
            check.expect(
                run.result.standardError.contains("0 missing, 0 off the line, 0 tempo changes, 0 too fast"),
                "\(run.result.standardError)")
            check.expect(
                run.result.standardError.contains("1 starts, 0 continues, 0 stops"), "\(run.result.standardError)")
        }
    }
}
