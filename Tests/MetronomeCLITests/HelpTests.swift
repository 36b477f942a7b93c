import Foundation
import MetronomeTestSupport
import Testing

@Suite("Help, version and help topics")
struct HelpTests {
    @Test("--version prints the version, exit 0")
    func version() throws {
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "0.1.0\n")
    }

    @Test("help NAME for a NAME that is no command: one line, exit 64; a real one prints its help")
    func helpTopic() throws {
        let bad = try CommandRunner.run(["help", "nope"])
        #expect(bad.status == 64)
        #expect(
            bad.standardError
                == "metronome: error: help nope: no such command; the commands are play, check, patterns, arp, chord, serve, sounds, devices, clock, log\n"
        )
        #expect(bad.standardOutput == "")
        let good = try CommandRunner.run(["help", "serve"])
        #expect(good.status == 0)
        #expect(good.standardOutput.hasPrefix("OVERVIEW: A long-running metronome controlled over OSC"))
    }

    @Test(
        "No option's help gives its default twice; --sample-rate lists the rates it takes",
        arguments: [[], ["play"], ["check"], ["arp"], ["chord"], ["serve"]])
    func defaultsOnce(command: [String]) throws {
        let result = try CommandRunner.run(["help"] + command)
        #expect(result.status == 0)
        // An option's help is its line and the indented lines under it, up to the next option.
        var entries: [String] = []
        for line in result.standardOutput.split(separator: "\n") {
            if line.hasPrefix("  -") {
                entries.append(String(line))
            } else if !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        // The loop below must not pass on nothing: every help lists options, and all but check's give defaults.
        try #require(!entries.isEmpty, "no option entries in:\n\(result.standardOutput)")
        if command != ["check"] {
            try #require(
                entries.contains { $0.contains("(default") }, "no option gives a default in:\n\(result.standardOutput)")
        }
        for entry in entries {
            #expect(entry.components(separatedBy: "(default").count <= 2, "\(entry)")
        }
        if command.isEmpty || command == ["play"] || command == ["serve"] {
            #expect(
                entries.contains {
                    $0.contains(
                        "Output sample rate in Hz: 8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400 or 192000."
                    )
                })
        }
    }

    /// The headings of a help text's sections, in order: its lines in capitals that end with a colon.
    static func sections(_ help: String) -> [String] {
        help.split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix(" ") && $0.hasSuffix(":") && $0 == $0.uppercased()
        }
    }

    @Test(
        "Help comes in the order a musician reaches for things: tempo, meter and sound; length, volume and output; live playback, JACK and Link; each command's own options last",
        arguments: [
            (
                [],
                [
                    "TEMPO, METER AND SOUND:", "LENGTH, VOLUME AND OUTPUT:",
                    "SECTION (AS ONE SECTION OF A .METRO FILE):", "LIVE PLAYBACK:", "JACK (WITH --DRIVER JACK):",
                    "ABLETON LINK:", "OPTIONS:", "SUBCOMMANDS:",
                ]
            ),
            (
                ["play"],
                [
                    "ARGUMENTS:", "TEMPO, METER AND SOUND:", "LENGTH, VOLUME AND OUTPUT:",
                    "NOTE TRACK (FILES WITH CHORDS):",
                    "LIVE PLAYBACK:", "JACK (WITH --DRIVER JACK):", "ABLETON LINK:", "OPTIONS:",
                ]
            ),
            (
                ["serve"],
                [
                    "ARGUMENTS:", "TEMPO, METER AND SOUND:", "LENGTH, VOLUME AND OUTPUT:",
                    "NOTES (/METRONOME/NOTE, CHORD, ARP):", "LIVE PLAYBACK:", "JACK (WITH --DRIVER JACK):",
                    "ABLETON LINK:", "OPTIONS:",
                ]
            ),
            (["check"], ["ARGUMENTS:", "THE TIMELINE'S OPTIONS, AS PLAY TAKES THEM:", "OPTIONS:"]),
        ])
    func sectionsInOrder(command: [String], expected: [String]) throws {
        let result = try CommandRunner.run(["help"] + command)
        #expect(result.status == 0)
        #expect(Self.sections(result.standardOutput) == expected, "\(result.standardOutput)")
    }

    @Test(
        "Each command's help lists only what it takes: play leaves out --meter and --accent, serve the file's options; check lists --bpm, --subdivide and --count-in"
    )
    func onlyWhatIsTaken() throws {
        let play = try CommandRunner.run(["help", "play"]).standardOutput
        let serve = try CommandRunner.run(["help", "serve"]).standardOutput
        let check = try CommandRunner.run(["help", "check"]).standardOutput
        for option in ["--meter <meter>", "--accent <accent>"] {
            #expect(!play.contains(option), "\(option)")
        }
        for option in ["-o, --output", "--format <format>", "--midi-tempo", "--channels <channels>", "--force"] {
            #expect(!serve.contains(option), "\(option)")
        }
        for option in ["--bpm <bpm>", "--subdivide <subdivide>", "--count-in <count-in>"] {
            #expect(check.contains(option), "\(option)")
        }
        // What they refuse is refused as before, in one line each.
        let meter = try CommandRunner.run(["play", "song", "--meter", "3/4", "-o", "/dev/null"])
        #expect(meter.status == 64)
        #expect(meter.standardError.contains("--meter does not apply to 'play'"), "\(meter.standardError)")
        #expect(meter.standardError.split(separator: "\n").count == 1, "\(meter.standardError)")
        let output = try CommandRunner.run(["serve", "-o", "x.wav"])
        #expect(output.status == 64)
        #expect(
            output.standardError.contains("'serve' plays live; render with the main command"), "\(output.standardError)"
        )
        #expect(output.standardError.split(separator: "\n").count == 1, "\(output.standardError)")
    }
}
