import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("Pattern files from the command line")
struct PatternCommandTests {
    @Test("'patterns' lists every shipped pattern with its header's first line")
    func list() throws {
        let result = try CommandRunner.run(["patterns"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count >= 12)
        #expect(lines.first == "basic          Basic 4/4 at 120 BPM: accent on beat one, endless.")
        #expect(
            lines.contains("waltz          3/4 waltz at 90 BPM with soft off-beats (strong one, light two and three)."))
    }

    @Test("'play NAME' finds a shipped pattern; --bars cuts it: 2 bars of the 3/4 waltz at 90")
    func playByName() throws {
        let scratch = try Scratch()
        let path = scratch.file("waltz.wav")
        let result = try CommandRunner.run(["play", "waltz", "--bars", "2", "--channels", "1", "-o", path])
        #expect(result.status == 0)
        #expect(result.standardOutput == "wrote \(path): 2 bars, 4.000 s, 48000 Hz mono float\n")
        let audio = try AudioFileReader.read(path: path)
        #expect(audio.frameCount == 192_000)
        #expect(onsets(audio.channels[0]) == (0..<6).map { $0 * 32000 })
    }

    @Test("--start-at a label, --tempo-scale, and --bpm over the file's tempo")
    func startAtAndScale() throws {
        let scratch = try Scratch()
        func frames(_ arguments: [String]) throws -> Int {
            let path = scratch.file("out.wav")
            let result = try CommandRunner.run(["play", "song", "--bars", "1", "--quiet", "-o", path] + arguments)
            #expect(result.status == 0, "\(result.standardError)")
            return try AudioFileReader.read(path: path).frameCount
        }
        // One bar of 4/4 at 112 is 102857.14 frames; with the file's count-in, two bars.
        #expect(try frames(["--start-at", "chorus", "--count-in", "0"]) == 102_857)
        #expect(try frames(["--start-at", "chorus"]) == 205_714)
        #expect(try frames(["--start-at", "chorus", "--count-in", "0", "--tempo-scale", "0.5"]) == 205_714)
        #expect(try frames(["--start-at", "chorus", "--count-in", "0", "--bpm", "120"]) == 96_000)
        // The bridge is 7/8 at eighth = 224: one bar of 7 eighths is 7 × 60/224 s.
        #expect(try frames(["--start-at", "bridge", "--count-in", "0"]) == 90_000)
        #expect(try frames(["--start-at", "37", "--count-in", "0"]) == 90_000)
    }

    @Test(
        "Bad requests: exact message and exit status, nothing written",
        arguments: [
            (
                ["play", "song", "--start-at", "bridge2"], 64,
                "metronome: error: --start-at bridge2: no section or group has this label (labels: intro, form, verse, chorus, bridge, build, outro, ending)\n"
            ),
            (
                ["play", "song", "--bpm", "100", "--tempo-scale", "2"], 64,
                "metronome: error: --bpm and --tempo-scale cannot be used together; choose one\n"
            ),
            (
                ["play", "song", "--tempo-scale", "0"], 64,
                "metronome: error: --tempo-scale 0: the factor must be a number from 0.1 to 10\n"
            ),
            (
                ["play", "song", "--tempo-scale", "9"], 64,
                "metronome: error: --tempo-scale 9.0: section 'intro' would play at 1008.0 BPM; tempos must be from 1 to 1000\n"
            ),
            (
                ["play", "nosuch"], 66,
                "metronome: error: nosuch: no such file, and no shipped pattern has this name (see 'metronome patterns')\n"
            ),
            (
                ["play", "song", "--accent", "Xxxx"], 64,
                "metronome: error: --accent does not apply to 'play': the file sets the meter and accents of every section\n"
            ),
        ])
    func badRequests(arguments: [String], status: Int32, message: String) throws {
        let scratch = try Scratch()
        let result = try CommandRunner.run(arguments + ["-o", scratch.file("out.wav")])
        #expect(result.status == status)
        #expect(result.standardError == message)
        #expect(scratch.contents == [])
    }

    @Test("An endless pattern needs --bars or --duration to render")
    func endlessNeedsLength() throws {
        let scratch = try Scratch()
        let result = try CommandRunner.run(["play", "basic", "-o", scratch.file("out.wav")])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("metronome: error: --output needs --bars N or --duration SECONDS: "))
        #expect(result.standardError.hasSuffix("Patterns/basic.metro plays without end\n"))
        #expect(scratch.contents == [])
    }

    @Test("A malformed .metro file: FILE:LINE:COLUMN, the line, a caret, exit 65, nothing written")
    func malformed() throws {
        let scratch = try Scratch()
        let path = scratch.file("bad.metro")
        try "tempo 120\nverse: 8 bars swing 12 50%\n".write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["check", path], ["play", path, "-o", scratch.file("out.wav")]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 65)
            #expect(
                result.standardError
                    == "\(path):2:21: error: swing applies to 8 (eighths) or 16 (sixteenths), or is 'off'\n"
                    + "verse: 8 bars swing 12 50%\n                    ^\n")
        }
        #expect(scratch.contents == ["bad.metro"])
    }

    @Test("check prints the expanded sections of a shipped pattern")
    func check() throws {
        let result = try CommandRunner.run(["check", "trainer"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == " #  label     bars  start bar  start time  meter  tempo  clicks")
        #expect(lines[1] == " 1  count-in     1          0    0:00.000  4/4    80     Xxxx, count-in")
        #expect(lines[2] == " 2  climb        4          1    0:03.000  4/4    80     Xxxx")
        #expect(lines[3] == " 3  climb        4          5    0:15.000  4/4    84     Xxxx")
        #expect(lines[13] == "13  hold         8         45    1:50.339  4/4    120    Xxxx")
        #expect(lines[14] == "total: 52 bars, 2:06.339")
    }
}
