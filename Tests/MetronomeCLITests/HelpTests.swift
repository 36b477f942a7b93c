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
                == "metronome: error: help nope: no such command; the commands are play, check, patterns, arp, chord, serve, sounds, devices\n"
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
}
