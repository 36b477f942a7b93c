import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("Sound server errors, devices and stopping", .serialized)
struct ServerErrorTests {
    @Test("metronome devices lists the server's sinks; --device picks one; an unknown sink is exit 69")
    func devices() throws {
        let server = try PulseServer()
        let list = try CommandRunner.run(["devices"], environment: server.clientEnvironment)
        #expect(list.status == 0)
        #expect(list.standardOutput == "metro  Null Output (default)\n")
        let good = try CommandRunner.run(
            ["--duration", "0.2", "--device", "metro", "--quiet"], environment: server.clientEnvironment)
        #expect(good.status == 0)
        let bad = try CommandRunner.run(
            ["--duration", "0.2", "--device", "nowhere"], environment: server.clientEnvironment)
        #expect(bad.status == 69)
        #expect(
            bad.standardError
                == "metronome: error: PulseAudio at \(server.address) (PULSE_SERVER) has no sink named 'nowhere'; 'metronome devices' lists its sinks\n"
        )
    }

    @Test("Ctrl-C: exit 0, and the last click is heard whole, never cut mid-sample")
    func interruptLetsTheClickFinish() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let offline = try offlineClicks(scratch: scratch)
        let accent = try #require(offline.accent, "\(offline.problem)")
        let normal = try #require(offline.normal, "\(offline.problem)")
        // The first click heard that is not the offline one, whole, with its onset.
        func differing(_ recorded: [Float]) -> (index: Int, onset: Int)? {
            for (index, onset) in onsets(recorded).enumerated() {
                let click = index % 4 == 0 ? accent : normal
                if !recorded[onset..<min(recorded.count, onset + click.count)].elementsEqual(click) {
                    return (index, onset)
                }
            }
            return nil
        }
        // `--verbose` tells an underrun of the server's apart from one of ours: only the first is repeated.
        let (result, recorded) = try repeatedOnlyForOutsideCauses {
            let recording = try server.startRecording()
            let command = try CommandRunner.start(
                ["--bpm", "120", "--quiet", "--verbose"], environment: server.clientEnvironment)
            usleep(1_260_000)
            command.send(SIGINT)
            let result = command.wait()
            let recorded = try recording.finish()
            let found = intervals(recorded)
            let cause = try outsideCause(
                result, recording, passes: differing(recorded) == nil, found: found,
                expected: [Int](repeating: 24000, count: found.count))
            return LiveAttempt((result, recorded), outsideCause: cause)
        }
        expectClean(result)
        // The report only: no error, no word about the interruption.
        #expect(!result.standardError.contains("error"), "\(result.standardError)")
        #expect(onsets(recorded).count >= 2)
        // Every click, the last included, is the whole click, identical to the offline one.
        let first = differing(recorded)
        #expect(first == nil, "click \(first?.index ?? 0) at \(first?.onset ?? 0) differs from the offline click")
    }
}

@Suite("Live status line", .serialized)
struct StatusLineTests {
    @Test(
        "On a terminal: one line per beat with the state, bar.beat, tempo, meter, the accent and the volume; count-in shown as such"
    )
    func statusOnTerminal() throws {
        let server = try PulseServer()
        let inner = "\(CommandRunner.executable) --bpm 120 --bars 1 --count-in 1"
        let terminal = try ChildProcess(
            "/usr/bin/script", ["-qfec", inner, "/dev/null"], environment: server.clientEnvironment)
        let result = terminal.wait()
        #expect(result.status == 0)
        let screen = result.standardOutput
        #expect(screen.contains("\r\u{1B}[2K ▶ count-in  120 BPM  4/4  X · · ·  vol 100%"))
        #expect(screen.contains("\r\u{1B}[2K ▶ count-in  120 BPM  4/4  · x · ·  vol 100%"))
        #expect(screen.contains("\r\u{1B}[2K ▶ 1.1  120 BPM  4/4  X · · ·  vol 100%"))
        #expect(screen.contains("\r\u{1B}[2K ▶ 1.4  120 BPM  4/4  · · · x  vol 100%"))
    }

    @Test("The status line shows the section label and the chord, and is cut to the terminal's width")
    func statusLabelChordAndWidth() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let pattern = scratch.file("song.metro")
        try "# status\ntempo 240\nverse: 1 bars chords Am7\n".write(toFile: pattern, atomically: true, encoding: .utf8)
        let wide = try ChildProcess(
            "/usr/bin/script", ["-qfec", "stty cols 80; \(CommandRunner.executable) play \(pattern)", "/dev/null"],
            environment: server.clientEnvironment)
        let wideScreen = wide.wait().standardOutput
        #expect(wideScreen.contains("\r\u{1B}[2K ▶ 1.1  240 BPM  4/4  X · · ·  vol 100%  verse  Am7"))
        let narrow = try ChildProcess(
            "/usr/bin/script", ["-qfec", "stty cols 20; \(CommandRunner.executable) play \(pattern)", "/dev/null"],
            environment: server.clientEnvironment)
        let narrowScreen = narrow.wait().standardOutput
        // 19 characters at most: " ▶ 1.1  240 BPM  4/" is what fits.
        #expect(
            narrowScreen.contains("\r\u{1B}[2K ▶ 1.1  240 BPM  4/\r")
                || narrowScreen.contains("\r\u{1B}[2K ▶ 1.1  240 BPM  4/\n"))
        let lines = narrowScreen.components(separatedBy: "\u{1B}[2K").dropFirst()
        #expect(!lines.isEmpty)
        // (A terminal sends "\r\n" as one Character: cut at the scalars.)
        #expect(
            lines.allSatisfy {
                String(String.UnicodeScalarView($0.unicodeScalars.prefix { $0 != "\r" && $0 != "\n" })).count <= 19
            })
    }

    @Test(
        "Keys on a terminal: → is +1 BPM at the next beat, - - is 80 %, space stops (the line says so, with the tempo and volume kept) and plays again at 121, q quits with exit 0, and the terminal is restored"
    )
    func keysOnTerminal() throws {
        let server = try PulseServer()
        // `stty -a` after the metronome shows the terminal's mode once it has exited.
        let terminal = try KeyedTerminal(
            "\(CommandRunner.executable) --bpm 120 --duration 30; stty -a",
            environment: server.clientEnvironment)
        terminal.type("\u{1B}[C", after: 1500)
        terminal.type("--", after: 1000)
        terminal.type(" ", after: 1000)
        terminal.type(" ", after: 1000)
        terminal.type("q", after: 1500)
        let result = terminal.wait()
        #expect(result.status == 0)
        let screen = result.standardOutput
        #expect(screen.contains(" ▶ 1.1  120 BPM  4/4  X · · ·  vol 100%"), "\(screen)")
        // Each redraw of the line: one at 121 BPM before the volume keys, one at 121 with 80 % (a beat's or the poll's).
        let drawn = screen.components(separatedBy: "\u{1B}[2K")
        #expect(drawn.contains { $0.contains(" 121 BPM  4/4  ") && $0.contains("  vol 100%") }, "\(screen)")
        #expect(
            drawn.contains { $0.hasPrefix(" ▶ ") && $0.contains(" 121 BPM  4/4  ") && $0.contains("  vol 80%") },
            "\(screen)")
        #expect(screen.contains("\r\u{1B}[2K ■ stopped  121 BPM  4/4  vol 80%"), "\(screen)")
        // Played again from the top, at the tempo and volume kept.
        #expect(
            screen.contains("■ stopped  121 BPM  4/4  vol 80%\r\u{1B}[2K ▶ 1.1  121 BPM  4/4  X · · ·  vol 80%"),
            "\(screen)")
        // Typed keys were not echoed, and the terminal is back in canonical mode with echo.
        #expect(!screen.contains("^[[C"))
        #expect(screen.contains(" icanon "))
        #expect(screen.contains(" echo "))
    }

    @Test("A crash signal while keys are on puts the terminal back before the process dies")
    func crashRestoresTerminal() throws {
        let server = try PulseServer()
        // The metronome reads the terminal explicitly (a background job would get /dev/null), is sent SIGSEGV, and
        // the shell then shows how it died and the terminal's mode.
        let inner =
            "\(CommandRunner.executable) --bpm 120 --duration 30 --quiet < /dev/tty & pid=$!; sleep 1.5; "
            + "kill -SEGV $pid; wait $pid; echo status=$?; stty -a"
        let terminal = try ChildProcess(
            "/usr/bin/script", ["-qfec", inner, "/dev/null"], environment: server.clientEnvironment)
        let result = terminal.wait()
        let screen = result.standardOutput
        #expect(screen.contains("status=139"))
        #expect(screen.contains(" icanon "))
        #expect(screen.contains(" echo "))
    }

    @Test("Not a terminal: no status line and no escape codes")
    func noStatusInPipes() throws {
        let server = try PulseServer()
        let result = try CommandRunner.run(["--bpm", "240", "--bars", "1"], environment: server.clientEnvironment)
        #expect(result.status == 0)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "")
    }
}
