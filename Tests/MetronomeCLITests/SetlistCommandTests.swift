import Foundation
import MetronomePatterns
import MetronomeTestSupport
import Testing

@Suite("Setlists from the command line: metronome check FILE.setlist")
struct SetlistCommandTests {
    static let example = patternsFolder + "/example.setlist"

    /// docs/setlists.md, whose examples these tests prove.
    static func docs() throws -> String {
        try String(contentsOfFile: patternsFolder + "/../docs/setlists.md", encoding: .utf8)
    }

    @Test("The format example in docs/setlists.md reads as the document says")
    func documentedExample() throws {
        let docs = try Self.docs()
        let start = try #require(docs.range(of: "```\n# Friday gig")).upperBound
        let block: String = "# Friday gig" + docs[start...].prefix { $0 != "`" }
        let set = try Setlist.parse(String(block), file: "gig.setlist")
        #expect(set.title == "Friday at the Blue Note")
        #expect(set.songs.map(\.title) == ["Opener", "Ballad", "Backing", "Straight", "Encore"])
        #expect(set.songs[2].source == .file(path: "backing tracks/tune.mid"))
        let landings: [SetlistSong.Landing] = [.nextBar, .nextBar, .nextBar, .now, .now]
        #expect(set.songs.map(\.landing) == landings)
        let advances: [SetlistSong.Advance] = [.wait, .wait, .wait, .after(4), .wait]
        #expect(set.songs.map(\.advance) == advances)
        #expect(set.songs[0].settings.map(\.option) == ["--bpm", "--count-in", "--bars"])
    }

    @Test("check prints the shipped example's songs, from any working folder (docs/setlists.md shows this output)")
    func checkExample() throws {
        let result = try CommandRunner.run(["check", Self.example])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "")
        #expect(
            result.standardOutput == """
                Example set: 4 songs
                #  title     source               tempo  meter  bars  length    count-in  then      switch
                1  Warm-up   click 100 4/4          100  4/4      16  0:40.800         1  after 5s  next-bar
                2  Waltz     pattern waltz           90  3/4      32  1:06.000         1  wait      next-bar
                3  The song  file song.metro      100.8  4/4      50  1:59.976         1  wait      next-bar
                4  Seven     pattern seven-eight    140  7/8      16  0:24.000         0  wait      now
                total: 4 songs, 4:10.776 played

                """)
        // The same lengths as `check` of each song's file with the same settings: the song at 0.9 is 1:59.976.
        let song = try CommandRunner.run(["check", "song", "--tempo-scale", "0.9"])
        #expect(song.standardOutput.hasSuffix("total: 50 bars, 1:59.976\n"))
        // The docs show the same table.
        #expect(
            try Self.docs().contains("$ metronome check Patterns/example.setlist\n" + result.standardOutput + "```"))
    }

    @Test("A set without a title is headed by its file; endless songs are counted apart from the total")
    func endlessAndUntitled() throws {
        let scratch = try Scratch()
        let path = scratch.file("practice.setlist")
        try """
        song "Groove" pattern basic   # endless
        song "Ramp" click 4.=60 6/8 bars 2 count-in 0
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["check", path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput == """
                \(path): 2 songs
                #  title   source           tempo  meter  bars  length    count-in  then  switch
                1  Groove  pattern basic      120  4/4       ∞  endless          0  wait  next-bar
                2  Ramp    click 4.=60 6/8     90  6/8       2  0:04.000         0  wait  next-bar
                total: 2 songs, 0:04.000 played, 1 endless

                """)
    }

    @Test("A malformed setlist: FILE:LINE:COLUMN, the line, a caret, exit 65")
    func malformed() throws {
        let scratch = try Scratch()
        let path = scratch.file("gig.setlist")
        try "setlist \"Gig\"\nsong \"Straight\" click 96 3/4 bars 32 then after 4\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["check", path])
        #expect(result.status == 65)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "\(path):2:49: error: the gap is a number of seconds from 0 to 600 followed by 's' (after 4s), "
                + "found '4'\nsong \"Straight\" click 96 3/4 bars 32 then after 4\n"
                + String(repeating: " ", count: 48) + "^\n")
        #expect(try Self.docs().contains(result.standardError.replacingOccurrences(of: scratch.path + "/", with: "")))
    }

    @Test("A song's missing file is the set's fault (65, positioned); a missing setlist is 66; options are 64")
    func exitStatuses() throws {
        let scratch = try Scratch()
        let path = scratch.file("gig.setlist")
        try "song \"Ballad\" file ballad.metro\n".write(toFile: path, atomically: true, encoding: .utf8)
        let missingSong = try CommandRunner.run(["check", path])
        #expect(missingSong.status == 65)
        #expect(
            missingSong.standardError
                == "\(path):1:20: error: \(scratch.file("ballad.metro")): no such file\n"
                + "song \"Ballad\" file ballad.metro\n" + String(repeating: " ", count: 19) + "^\n")
        let missing = try CommandRunner.run(["check", scratch.file("none.setlist")])
        #expect(missing.status == 66)
        #expect(missing.standardError == "metronome: error: \(scratch.file("none.setlist")): no such file\n")
        for option in [["--bpm", "100"], ["--tempo-scale", "2"], ["--start-at", "verse"], ["--count-in", "1"]] {
            let refused = try CommandRunner.run(["check", path] + option)
            #expect(refused.status == 64)
            #expect(
                refused.standardError
                    == "metronome: error: \(option[0]) does not apply to 'check' of a setlist: each song's settings "
                    + "are in the file\n")
        }
        let binary = scratch.file("binary.setlist")
        try Data([0x73, 0x6F, 0x6E, 0x67, 0x00]).write(to: URL(fileURLWithPath: binary))
        let notText = try CommandRunner.run(["check", binary])
        #expect(notText.status == 65)
        #expect(notText.standardError.hasPrefix("metronome: error: \(binary): not a text file (byte 0x00 at offset 4)"))
    }

    @Test(
        "A song's bad value reads as the command line's error for the same option, at the value's line:column",
        arguments: [
            ("click 0 4/4", 19, ["--bpm", "0"]),
            ("click 120 4/4 count-in 17", 36, ["--bpm", "120", "--count-in", "17"]),
            ("click 120 4/4 sound kazoo", 33, ["--sound", "kazoo"]),
            ("click 120 4/4 volume 1.5", 34, ["--volume", "1.5"]),
            ("click 120 4/4 bars 1.5", 32, ["--bars", "1.5"]),
            ("click 120 13/7", 23, ["--meter", "13/7"]),
            ("pattern song tempo-scale 11", 38, ["play", "song", "--tempo-scale", "11"]),
            ("pattern song start-at nowhere", 35, ["play", "song", "--start-at", "nowhere"]),
            ("pattern song tempo-scale 9", 38, ["play", "song", "--tempo-scale", "9"]),
        ])
    func sameErrorsAsTheOptions(song: String, column: Int, arguments: [String]) throws {
        let scratch = try Scratch()
        let path = scratch.file("gig.setlist")
        let line = "song \"Song\" \(song)"
        try "setlist \"Gig\"\n\(line)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let checked = try CommandRunner.run(["check", path])
        // Rendered to a file, so that nothing could play live; the click needs a length to render.
        let length = arguments.contains("--bars") || arguments[0] == "play" ? [] : ["--bars", "1"]
        let option = try CommandRunner.run(arguments + length + ["--output", scratch.file("x.wav")])
        #expect(checked.status == 65)
        #expect(option.status == 64)
        let reason = option.standardError.replacingOccurrences(of: "metronome: error: ", with: "")
        #expect(reason.hasPrefix(arguments[arguments.count - 2]), "\(option.standardError)")
        #expect(
            checked.standardError
                == "\(path):2:\(column): error: \(reason)\(line)\n" + String(repeating: " ", count: column - 1) + "^\n")
        #expect(scratch.contents == ["gig.setlist"])
        if arguments.contains("--count-in") {
            let shown = checked.standardError.replacingOccurrences(of: scratch.path + "/", with: "")
            #expect(try Self.docs().contains(shown))
        }
    }
}

/// `play` and `serve` of a setlist: what they refuse before any sound server is asked.
@Suite("Setlists played: the options a set refuses")
struct SetlistPlayOptionTests {
    @Test(
        "play gig.setlist refuses a song's option and a render, serve gig.setlist a click option, --midi-next needs a set and JACK: one line, exit 64"
    )
    func refusals() throws {
        let example = SetlistCommandTests.example
        let cases: [([String], String)] = [
            (
                ["play", example, "--bpm", "100"],
                "--bpm does not apply to a setlist: each song's settings are in the file"
            ),
            (
                ["play", example, "--octave", "3"],
                "--octave does not apply to a setlist: each song's settings are in the file"
            ),
            (
                ["play", example, "-o", "set.wav"],
                "--output does not apply to a setlist: a setlist plays live; render its songs one by one with play"
            ),
            (
                ["serve", example, "--meter", "3/4"],
                "--meter does not apply to a setlist: each song's settings are in the file"
            ),
            (["play", example, "--midi-next", "cc64"], "--midi-next applies only with --driver jack"),
            // Before any JACK client is opened: 64, not 69, with no server.
            (
                ["play", example, "--driver", "jack", "--transport", "master"],
                "--transport does not apply to a setlist: the JACK transport's position is the song's, and each song "
                    + "starts from its own top (--link and --follow midi-clock keep a set in phase)"
            ),
            (
                ["serve", example, "--driver", "jack", "--transport", "follow"],
                "--transport does not apply to a setlist: the JACK transport's position is the song's, and each song "
                    + "starts from its own top (--link and --follow midi-clock keep a set in phase)"
            ),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError == "metronome: error: \(message)\n", "\(arguments)")
            #expect(result.standardOutput == "")
        }
    }

    @Test(
        "play gig.setlist takes --soundfont for its MIDI songs: a missing font is one line and exit 66, nothing played")
    func soundfont() throws {
        let scratch = try Scratch()
        // A Standard MIDI File with one empty track.
        let midi: [UInt8] =
            Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + [
                0, 0, 0, 4, 0, 0xFF, 0x2F, 0,
            ]
        try Data(midi).write(to: URL(fileURLWithPath: scratch.file("song.mid")))
        try "song \"Tune\" file song.mid\n".write(
            toFile: scratch.file("gig.setlist"), atomically: true, encoding: .utf8)
        let missing = scratch.file("missing.sf2")
        let result = try CommandRunner.run(["play", scratch.file("gig.setlist"), "--soundfont", missing])
        #expect(result.status == 66, "\(result.standardError)")
        #expect(result.standardError == "metronome: error: --soundfont \(missing): no such file\n")
        #expect(result.standardOutput == "")
    }
}
