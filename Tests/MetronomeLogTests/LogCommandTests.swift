import Foundation
import MetronomeLog
import MetronomeTestSupport
import Testing

/// `metronome log` as a user runs it: its summary of a file the library wrote, and every bad input as one line and
/// its exit code, the text exact.
@Suite("MetronomeLog: metronome log, its output and its errors")
struct LogCommandTests {
    @Test("The summary and the runs of a file, as text, CSV and JSON")
    func summary() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        let store = try PracticeStore.openForWriting(path: path)
        var old = PracticeLogFixtures.record(what: "song", date: "2026-01-05", seconds: 3725, highest: 132)
        try store.insert(&old)
        let text = try CommandRunner.run(["log", "--log-file", path])
        #expect(text.status == 0)
        #expect(text.standardError == "")
        let lines = text.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6, "\(text.standardOutput)")
        #expect(lines.first?.hasPrefix("today (") == true)
        #expect(lines.first?.hasSuffix("): 0:00:00 in 0 runs") == true)
        #expect(
            lines.dropFirst(2).joined(separator: "\n") == """
                per song or pattern, every day:
                   time  runs  highest  what
                1:02:05     1      132  song

                """)
        let csv = try CommandRunner.run([
            "log", "--log-file", path, "--csv", "--since", "2026-01-05", "--until", "2026-01-05",
        ])
        #expect(csv.status == 0)
        #expect(csv.standardOutput.hasSuffix("\npiece,2026-01-05,2026-01-05,song,3725,1,132\n"))
        let none = try CommandRunner.run(["log", "--log-file", path, "--since", "2026-01-06"])
        #expect(none.standardOutput.hasSuffix("per song or pattern, from 2026-01-06:\n  no runs\n"))
        let runs = try CommandRunner.run(["log", "--log-file", path, "--runs", "--json"])
        #expect(runs.status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(runs.standardOutput.utf8)) as? [[String: Any]]
        #expect(decoded?.first?["what"] as? String == "song")
        #expect(decoded?.first?["ending"] as? String == "ended")
        #expect(decoded?.first?["seconds"] as? Double == 3725)
    }

    @Test("Bad input: a date that does not parse 64, a missing file 66, a file that is not a database 65")
    func errors() throws {
        let scratch = try Scratch()
        let missing = scratch.file("missing.sqlite")
        let corrupt = scratch.file("corrupt.sqlite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }).write(to: URL(fileURLWithPath: corrupt))
        let cases: [([String], Int32, String)] = [
            (
                ["log", "--since", "2026-13-01"], 64,
                "metronome: error: --since 2026-13-01: a date is YYYY-MM-DD, as 2026-11-30\n"
            ),
            (
                ["log", "--until", "yesterday"], 64,
                "metronome: error: --until yesterday: a date is YYYY-MM-DD, as 2026-11-30\n"
            ),
            (
                ["log", "--since", "2026-12-02", "--until", "2026-12-01"], 64,
                "metronome: error: --since 2026-12-02 is after --until 2026-12-01\n"
            ),
            (
                ["log", "--json", "--csv"], 64,
                "metronome: error: --json and --csv cannot be used together; choose one\n"
            ),
            (["log", "--log-file", missing], 66, "metronome: error: practice log \(missing): no such file\n"),
            (
                ["log", "--log-file", corrupt], 65,
                "metronome: error: practice log \(corrupt): file is not a database\n"
            ),
        ]
        for (arguments, status, line) in cases {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == status, "\(arguments)")
            #expect(result.standardError == line, "\(arguments)")
            #expect(result.standardOutput == "", "\(arguments)")
        }
    }

    @Test("The default file is under XDG_DATA_HOME; a render never logs, and refuses the log's options")
    func defaultFileAndRenders() throws {
        let scratch = try Scratch()
        let environment = ["XDG_DATA_HOME": scratch.path, "HOME": scratch.file("home")]
        let log = try CommandRunner.run(["log"], environment: environment)
        #expect(log.status == 66)
        #expect(
            log.standardError
                == "metronome: error: practice log \(scratch.path)/metronome/practice.sqlite: no such file\n")
        let render = try CommandRunner.run(
            ["240", "--bars", "1", "--output", scratch.file("a.wav")], environment: environment)
        #expect(render.status == 0)
        #expect(scratch.contents == ["a.wav"])
        for option in [["--log-file", scratch.file("x.sqlite")], ["--no-log"]] {
            let refused = try CommandRunner.run(["240", "--bars", "1", "--output", scratch.file("b.wav")] + option)
            #expect(refused.status == 64)
            #expect(
                refused.standardError
                    == "metronome: error: \(option[0]) applies only to live playback, not with --output\n")
        }
        let both = try CommandRunner.run(["240", "--log-file", scratch.file("x.sqlite"), "--no-log"])
        #expect(both.status == 64)
        #expect(both.standardError == "metronome: error: --log-file and --no-log cannot be used together; choose one\n")
    }
}
