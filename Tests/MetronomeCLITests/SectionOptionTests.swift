import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// `--swing`, `--meter n/d=a+b+…`, `--gap` and `--trainer`: the click command is one `.metro` section, so each render
/// must equal, sample for sample, `play` of the one-section file that says the same.
@Suite("One section from the command line")
struct SectionOptionTests {
    /// (what, click options, the equivalent file, bars to render).
    static let equivalents: [(String, [String], String, String)] = [
        (
            "swung eighths", ["--bpm", "140", "--subdivide", "2", "--swing", "50"],
            "tempo 140\n4 bars subdivide 2 swing 8 50%\n", "4"
        ),
        (
            "swung sixteenths", ["--bpm", "100", "--subdivide", "4", "--swing", "16=60%"],
            "tempo 100\n4 bars subdivide 4 swing 16 60%\n", "4"
        ),
        ("a grouped 7/8", ["--bpm", "126", "--meter", "7/8=2+2+3"], "tempo 8=252\nmeter 7/8 2+2+3\n4 bars\n", "4"),
        ("gap practice", ["--bpm", "100", "--gap", "3:1"], "tempo 100\ngap play 3 mute 1\nforever\n", "10"),
        (
            "a trainer up", ["--bpm", "80", "--trainer", "+4/2:100"],
            "tempo 80\n14 bars trainer +4 every 2 bars to 100\n", "14"
        ),
        (
            "a trainer down, endless", ["--bpm", "120", "--trainer", "-5/1:100"],
            "tempo 120\nforever trainer -5 every 1 bars to 100\n", "7"
        ),
        (
            "all together with a count-in and accents",
            [
                "--bpm", "96.5", "--meter", "5/8=3+2", "--accent", "X.xXo", "--subdivide", "2", "--swing", "8=40",
                "--gap", "2:1", "--trainer", "-3/1:80", "--count-in", "2",
            ],
            "count-in 2\ntempo 96.5\nmeter 5/8 3+2\naccent X.xXo\nsubdivide 2\nswing 8 40%\ngap play 2 mute 1\n"
                + "9 bars trainer -3 every 1 bars to 80\n",
            "9"
        ),
    ]

    @Test(
        "A swing that moves no click is refused (exit 64, the subdivision that would swing named): --swing 50 alone, 16=60 over eighths; in 6/8 the eighth beats themselves swing"
    )
    func swingThatMovesNothing() throws {
        let scratch = try Scratch()
        let path = scratch.file("swing.wav")
        let refused: [([String], String)] = [
            (
                ["--swing", "50"],
                "--swing 50: no click of 4/4 at one click a beat falls between the swung eighths; add --subdivide 2"
            ),
            (
                ["--subdivide", "2", "--swing", "16=60"],
                "--swing 16=60: no click of 4/4 at 2 clicks a beat falls between the swung sixteenths; add --subdivide 4"
            ),
            (
                ["--meter", "3/4", "--swing", "8=50"],
                "--swing 8=50: no click of 3/4 at one click a beat falls between the swung eighths; add --subdivide 2"
            ),
        ]
        for (options, message) in refused {
            let result = try CommandRunner.run(["--bpm", "120", "--bars", "1", "-o", path] + options)
            #expect(result.status == 64, "\(options)")
            #expect(result.standardError == "metronome: error: \(message)\n")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        let sixEight = try CommandRunner.run([
            "--bpm", "120", "--meter", "6/8", "--swing", "50", "--bars", "1", "--quiet", "-o", path,
        ])
        #expect(sixEight.status == 0, "\(sixEight.standardError)")
    }

    @Test("The click options render exactly what play renders of the one-section file", arguments: equivalents)
    func sameAsOneSectionFile(what: String, options: [String], file: String, bars: String) throws {
        let scratch = try Scratch()
        let pattern = scratch.file("one-section.metro")
        try file.write(toFile: pattern, atomically: true, encoding: .utf8)
        func render(_ arguments: [String], _ name: String) throws -> DecodedAudio {
            let path = scratch.file(name)
            let result = try CommandRunner.run(arguments + ["--bars", bars, "--channels", "1", "--quiet", "-o", path])
            #expect(result.status == 0, "\(what): \(result.standardError)")
            return try AudioFileReader.read(path: path)
        }
        let click = try render(options, "a.wav")
        let played = try render(["play", pattern], "b.wav")
        #expect(click.frameCount == played.frameCount, "\(what)")
        #expect(click.channels == played.channels, "\(what)")
        // The options did something: the plain click at the same tempo sounds different.
        let plain = try render(Array(options.prefix(2)), "plain.wav")
        #expect(plain.channels != click.channels, "\(what)")
    }

    static let badValues: [([String], String)] = [
        (["--swing", "80"], "--swing 80: the swing amount is a percentage from 0% to 75% (50% is the triplet feel)"),
        (
            ["--swing", "1e400"],
            "--swing 1e400: the swing amount is a percentage from 0% to 75% (50% is the triplet feel)"
        ),
        (["--swing", "4=50"], "--swing 4=50: swing applies to 8 (eighths) or 16 (sixteenths)"),
        (
            ["--swing", "9223372036854775808=50"],
            "--swing 9223372036854775808=50: swing applies to 8 (eighths) or 16 (sixteenths)"
        ),
        (["--meter", "7/8=2+2+2"], "--meter 7/8=2+2+2: the grouping adds up to 6 but 7/8 has 7 beats"),
        (["--meter", "7/8=7"], "--meter 7/8=7: a grouping is whole numbers joined by '+', as in 2+2+3"),
        (["--meter", "7/8=2+0+5"], "--meter 7/8=2+0+5: a grouping is whole numbers joined by '+', as in 2+2+3"),
        (
            ["--meter", "7/8=9223372036854775807+9223372036854775807"],
            "--meter 7/8=9223372036854775807+9223372036854775807: the grouping adds up to far more than the 7 "
                + "beats of 7/8"
        ),
        (["--meter", "7/9=2+2+3"], "--meter 7/9=2+2+3: the beat unit must be 1, 2, 4, 8, 16 or 32"),
        (["--meter", "7/8=2+2+3", "--accent", "X.x"], "--accent X.x: the pattern has 3 beats but 7/8 needs 7"),
        (["--gap", "3"], "--gap 3: write bars played and bars muted as PLAY:MUTE, whole numbers (3:1)"),
        (["--gap", "3:-1"], "--gap 3:-1: write bars played and bars muted as PLAY:MUTE, whole numbers (3:1)"),
        (["--gap", "0:1"], "--gap 0:1: gap practice plays and mutes from 1 to 1000 bars at a time"),
        (["--gap", "3:1001"], "--gap 3:1001: gap practice plays and mutes from 1 to 1000 bars at a time"),
        (
            ["--gap", "9223372036854775808:1"],
            "--gap 9223372036854775808:1: gap practice plays and mutes from 1 to 1000 bars at a time"
        ),
        (
            ["--trainer", "+4"],
            "--trainer +4: write the trainer as STEP/BARS:LIMIT, as in +4/2:160 (4 BPM faster every 2 bars, up to 160)"
        ),
        (["--trainer", "0/2:160"], "--trainer 0/2:160: a trainer step is a number of BPM such as +4 or -2, not zero"),
        (
            ["--trainer", "+4/0:160"],
            "--trainer +4/0:160: the bars between a trainer's steps are a whole number from 1 to 1000000"
        ),
        (
            ["--trainer", "+4/9223372036854775808:160"],
            "--trainer +4/9223372036854775808:160: the bars between a trainer's steps are a whole number from 1 to 1000000"
        ),
        (["--trainer", "+4/2:1001"], "--trainer +4/2:1001: the trainer's limit is a tempo from 1 to 1000"),
        (["--trainer", "+4/2:1e400"], "--trainer +4/2:1e400: the trainer's limit is a tempo from 1 to 1000"),
        (
            ["--bpm", "100", "--trainer", "+4/2:90"],
            "--trainer +4/2:90: the trainer never moves: it starts at 100 and its limit is 90"
        ),
        (
            ["--trainer", "-4/2:160"],
            "--trainer -4/2:160: the trainer never moves: it starts at 120 and its limit is 160"
        ),
        (
            ["--duration", "60", "--trainer", "+0.000001/1:1000"],
            "--trainer +0.000001/1:1000: the trainer would take more than 200000 steps; use a bigger step or fewer bars"
        ),
        (
            ["play", "basic", "--swing", "50"],
            "--swing does not apply to 'play': the file sets the swing of its sections"
        ),
        (
            ["play", "basic", "--gap", "3:1"],
            "--gap does not apply to 'play': the file sets the gap practice of its sections"
        ),
        (
            ["play", "basic", "--trainer", "+4/2:160"],
            "--trainer does not apply to 'play': the file sets the tempo trainers of its sections"
        ),
        (
            ["play", "basic", "--meter", "7/8=2+2+3"],
            "--meter does not apply to 'play': the file sets the meter and accents of every section"
        ),
        (
            ["arp", "C", "--gap", "3:1"],
            "--gap does not apply to 'arp'; write the chords in a .metro file with 'gap' and play it"
        ),
        (
            ["arp", "C", "--trainer", "+4/2:160"],
            "--trainer does not apply to 'arp'; write the chords in a .metro file with 'trainer' and play it"
        ),
        (["chord", "C", "--swing", "50"], "--swing does not apply to 'chord': a held chord has no beats to shape"),
        (["chord", "C", "--gap", "3:1"], "--gap does not apply to 'chord': a held chord has no beats to shape"),
    ]

    @Test("Bad values and refusals: one exact line naming the option, exit 64, nothing written", arguments: badValues)
    func badValue(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let length = arguments.contains("--duration") ? [] : ["--bars", "4"]
        let result = try CommandRunner.run(arguments + length + ["-o", scratch.file("out.wav")])
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
        #expect(result.standardOutput == "")
        #expect(scratch.contents == [])
    }

    @Test("arp keeps --swing for its steps: eighths at 120 with 50% swing land on 0, 16000, 24000, 40000 …")
    func arpSwing() throws {
        let scratch = try Scratch()
        let path = scratch.file("arp.wav")
        let result = try CommandRunner.run([
            "arp", "C", "--rate", "1/8", "--swing", "50", "--gate", "0.05", "--instrument", "organ", "--bars", "1",
            "--channels", "1", "--quiet", "-o", path,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        // The organ's attack starts at zero, so each note sounds from the frame after its onset.
        let samples = try AudioFileReader.read(path: path).channels[0]
        #expect(onsets(samples) == [0, 16000, 24000, 40000, 48000, 64000, 72000, 88000].map { $0 + 1 })
    }
}
