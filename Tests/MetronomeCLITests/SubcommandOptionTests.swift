import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The argument parser lets every subcommand take the main command's options: each one either means something to the
/// subcommand or is refused with one line and exit 64, never ignored.
@Suite("The main command's options in subcommands")
struct SubcommandOptionTests {
    static let checkNote = "it takes --bpm, --tempo-scale, --start-at, --count-in and --subdivide, as play does"
    static let chordNote = "a held chord has no beat; it lasts --duration seconds"

    static let refusals: [([String], String)] =
        [
            (["check", "song", "--meter", "3/4"], "--meter does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--accent", "Xxxx"], "--accent does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--bars", "8"], "--bars does not apply to 'check'; \(checkNote)"),
            (["check", "song", "-o", "out.wav"], "--output does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--channels", "1"], "--channels does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--quiet"], "--quiet does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--swing", "50"], "--swing does not apply to 'check'; \(checkNote)"),
            (["check", "song", "--latency", "40"], "--latency does not apply to 'check'; \(checkNote)"),
            (["patterns", "--bpm", "100"], "--bpm does not apply to 'patterns'; it takes no options"),
            (["patterns", "--trainer", "+4/2:160"], "--trainer does not apply to 'patterns'; it takes no options"),
            (["sounds", "--sound", "wood"], "--sound does not apply to 'sounds'; it takes no options"),
            (["sounds", "--verbose"], "--verbose does not apply to 'sounds'; it takes no options"),
            (["sounds", "--channels", "2"], "--channels does not apply to 'sounds'; it takes no options"),
            (["devices", "--device", "nope"], "--device does not apply to 'devices'; it takes no options"),
            (["devices", "--sample-rate", "44100"], "--sample-rate does not apply to 'devices'; it takes no options"),
            (
                ["serve", "--osc", "127.0.0.1:1", "--gap", "3:1"],
                "--gap does not apply to 'serve'; write it in a .metro file and serve that"
            ),
        ]
        + [
            ["--bpm", "100"], ["--meter", "3/4"], ["--accent", "X"], ["--subdivide", "2"], ["--count-in", "2"],
            ["--bars", "2"], ["--sound", "wood"], ["--sound-file", "tick.wav"],
        ].map { (["chord", "C"] + $0, "\($0[0]) does not apply to 'chord': \(chordNote)") }

    @Test("Options a subcommand cannot use: one line naming the option and the command, exit 64", arguments: refusals)
    func refused(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        // chord with a file to write: the refusal comes first and nothing is written.
        let output = arguments[0] == "chord" ? ["-o", scratch.file("chord.wav")] : []
        let result = try CommandRunner.run(arguments + output)
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
        #expect(result.standardOutput == "")
        #expect(scratch.contents == [])
    }

    @Test("chord's help lists the options it uses and none of the click's")
    func chordHelp() throws {
        let help = try CommandRunner.run(["chord", "--help"]).standardOutput
        for name in ["--duration", "--output", "--volume", "--sample-rate", "--channels", "--strum", "--instrument"] {
            #expect(help.contains(name), "\(name)")
        }
        for name in ["--bpm", "--meter", "--accent", "--subdivide", "--count-in", "--bars", "--sound ", "--sound-file"]
        {
            #expect(!help.contains(name), "\(name)")
        }
    }

    @Test("chord still takes the output options: --duration, --channels, --sample-rate")
    func chordOutput() throws {
        let scratch = try Scratch()
        let path = scratch.file("chord.wav")
        let result = try CommandRunner.run([
            "chord", "C", "--duration", "1", "--channels", "1", "--sample-rate", "44100", "--quiet", "-o", path,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let audio = try AudioFileReader.read(path: path)
        #expect(audio.channels.count == 1)
        #expect(audio.sampleRate == 44100)
    }

    @Test("check --bpm 100 shows 100 where the file says 112")
    func checkBPM() throws {
        let plain = try CommandRunner.run(["check", "song"])
        let faster = try CommandRunner.run(["check", "song", "--bpm", "100"])
        #expect(plain.status == 0)
        #expect(faster.status == 0)
        let plainLines = plain.standardOutput.split(separator: "\n")
        let lines = faster.standardOutput.split(separator: "\n")
        #expect(plainLines[2] == " 2  intro        4          1    0:02.143  4/4        112      Xoxo")
        #expect(lines[2] == " 2  intro        4          1    0:02.400  4/4        100                     Xoxo")
        #expect(plainLines.last == "total: 50 bars, 1:47.978")
        #expect(lines.last == "total: 50 bars, 1:59.176")
    }

    @Test("check --start-at and --tempo-scale: the sections play plays")
    func checkStartAndScale() throws {
        let result = try CommandRunner.run(["check", "song", "--start-at", "bridge", "--tempo-scale", "0.5"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines[1] == "1  count-in     1         36    0:00.000  7/8        56     Xxxxxxx, count-in")
        #expect(lines[2] == "2  bridge       6         37    0:03.750  7/8 2+2+3  56     Xoxoxoo")
        #expect(lines.last == "total: 14 bars, 1:01.136")
        let bad = try CommandRunner.run(["check", "song", "--start-at", "nope"])
        let played = try CommandRunner.run(["play", "song", "--start-at", "nope"])
        #expect(bad.status == 64)
        #expect(bad.standardError == played.standardError)
        let both = try CommandRunner.run(["check", "song", "--bpm", "100", "--tempo-scale", "2"])
        #expect(both.status == 64)
        #expect(
            both.standardError
                == "metronome: error: --bpm and --tempo-scale cannot be used together; choose one\n")
    }

    static let previews: [[String]] = [
        [], ["--bpm", "100"], ["--tempo-scale", "0.8"], ["--start-at", "chorus"],
        ["--start-at", "37", "--count-in", "2"],
        ["--subdivide", "3", "--bpm", "90"], ["--count-in", "0"],
    ]

    @Test("check's total is the length of what play renders with the same options", arguments: previews)
    func checkMatchesRender(options: [String]) throws {
        let scratch = try Scratch()
        let path = scratch.file("song.wav")
        let check = try CommandRunner.run(["check", "song"] + options)
        let render = try CommandRunner.run(["play", "song", "--channels", "1", "--quiet", "-o", path] + options)
        #expect(check.status == 0, "\(check.standardError)")
        #expect(render.status == 0, "\(render.standardError)")
        let frames = try AudioFileReader.read(path: path).frameCount
        // check prints the exact end to the millisecond; the render ends on the nearest whole frame (1/96 ms away).
        let total = check.standardOutput.split(separator: "\n").last ?? ""
        let clock = total.split(separator: " ").last?.split(whereSeparator: { $0 == ":" || $0 == "." }) ?? []
        #expect(total.hasPrefix("total: ") && clock.count == 3, "\(total)")
        let parts = clock.compactMap { Int($0) }
        let milliseconds = parts.count == 3 ? (parts[0] * 60 + parts[1]) * 1000 + parts[2] : -1
        #expect(abs(Double(milliseconds) - Double(frames) / 48) <= 0.5 + 1.0 / 96, "\(options): \(total), \(frames)")
    }
}
