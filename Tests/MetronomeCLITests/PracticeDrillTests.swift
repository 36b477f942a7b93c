import Foundation
import MetronomeApp
import MetronomeEngine
import MetronomeFiles
import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// `--random-mute` and `--practice` rendered: the muted bars hold sample-exact silence where their clicks would be,
/// the others the plain click's very samples; the practice timer's chime starts on its computed frame and the file
/// ends after it. And their options' errors, word for word.
@Suite("Practice drills: random mute and the practice timer, rendered")
struct PracticeDrillTests {
    /// A mono render of `arguments` (quiet unless `quiet` is false): the samples and the command's result.
    static func render(_ arguments: [String], to path: String, quiet: Bool = true) throws -> (
        samples: [Float], result: CommandResult
    ) {
        let result = try CommandRunner.run(arguments + ["--channels", "1", "-o", path] + (quiet ? ["--quiet"] : []))
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return (try AudioFileReader.read(path: path).channels[0], result)
    }

    @Test(
        "120 BPM, a bar of count-in, 16 bars, --random-mute 25% --mute-seed 1234: bars 3, 8 and 11 are silent to the sample, every other bar is the plain click's samples, and the seed is said first"
    )
    func mutedBarsAreSilent() throws {
        let scratch = try Scratch()
        let base = ["--bpm", "120", "--count-in", "1", "--bars", "16"]
        let plain = try Self.render(base, to: scratch.file("plain.wav")).samples
        let (muted, result) = try Self.render(
            base + ["--random-mute", "25%", "--mute-seed", "1234"], to: scratch.file("muted.wav"), quiet: false)
        #expect(result.standardError == "metronome: random mute 25%, seed 1234 (--mute-seed 1234 repeats it)\n")
        #expect(muted.count == plain.count)
        #expect(plain.count == 17 * 96_000)
        // Bars of music 2, 7 and 10 from 0 (3, 8 and 11 as the status line counts): the hash's pattern, pinned.
        let mute = RandomMute(probability: 0.25, seed: 1234)
        #expect((-1..<16).filter { mute.mutes(bar: $0, firstBar: 0) } == [2, 7, 10])
        for bar in -1..<16 {
            // The count-in is bar -1; a bar is 96000 frames, its clicks at 0, 24000, 48000 and 72000.
            let range = (bar + 1) * 96_000..<(bar + 2) * 96_000
            if [2, 7, 10].contains(bar) {
                #expect(muted[range].allSatisfy { $0 == 0 }, "bar \(bar)")
                #expect(onsets(Array(plain[range])) == [0, 24000, 48000, 72000], "bar \(bar)")
            } else {
                #expect(muted[range] == plain[range], "bar \(bar)")
            }
        }
        #expect(onsets(muted).count == 4 * 17 - 12)
    }

    @Test("The same seed renders byte-identical files; another seed mutes other bars")
    func sameSeedSameFile() throws {
        let scratch = try Scratch()
        let arguments = ["--bpm", "200", "--bars", "24", "--subdivide", "2", "--random-mute", "0.5"]
        for (name, seed) in [("a.wav", "77"), ("b.wav", "77"), ("c.wav", "78")] {
            let result = try CommandRunner.run(arguments + ["--mute-seed", seed, "--quiet", "-o", scratch.file(name)])
            #expect(result.status == 0)
        }
        let files = try ["a.wav", "b.wav", "c.wav"].map { try Data(contentsOf: URL(fileURLWithPath: scratch.file($0))) }
        #expect(files[0] == files[1])
        #expect(files[0] != files[2])
    }

    @Test("A tempo trainer moves every bar but mutes the same bars: the mute is a function of the bar, not of time")
    func sameBarsAfterTempoChange() throws {
        let scratch = try Scratch()
        let drill = ["--random-mute", "0.4", "--mute-seed", "9", "--bars", "12"]
        func mutedBars(_ arguments: [String], _ name: String) throws -> [Int] {
            let plain = try Self.render(arguments + ["--bars", "12"], to: scratch.file("plain-" + name)).samples
            let muted = try Self.render(arguments + drill, to: scratch.file(name)).samples
            // Each bar's frames from the plain render's downbeats (every fourth onset).
            let downbeats = stride(from: 0, to: 48, by: 4).map { onsets(plain)[$0] } + [plain.count]
            return (0..<12).filter { bar in muted[downbeats[bar]..<downbeats[bar + 1]].allSatisfy { $0 == 0 } }
        }
        let steady = try mutedBars(["--bpm", "120"], "steady.wav")
        let trained = try mutedBars(["--bpm", "120", "--trainer", "+10/1:200"], "trained.wav")
        let mute = RandomMute(probability: 0.4, seed: 9)
        #expect(steady == (0..<12).filter { mute.mutes(bar: $0, firstBar: 0) })
        #expect(!steady.isEmpty)
        #expect(trained == steady)
    }

    @Test(
        "--practice 7s at 100 BPM: the clicks up to bar 4, the chime on its first frame, 345600 (the first downbeat at or after 336000), and the file ends 1.2 s and the 5 ms fade after it",
        arguments: [[String](), ["--count-in", "2"]])
    func practiceEndsOnTheDownbeat(countIn: [String]) throws {
        let scratch = try Scratch()
        let (samples, result) = try Self.render(
            ["--bpm", "100", "--practice", "7s"] + countIn, to: scratch.file("practice.wav"), quiet: false)
        let chime = ClickSynthesizer.practiceEndSound(sampleRate: .standard).channel(0)
        // A beat is 28800 frames, a bar 115200; 7 s is 336000 frames from the first click (the count-in's).
        let end = 3 * 115_200
        #expect(samples.count == end + chime.count + 240)
        #expect(onsets(Array(samples[..<end])) == stride(from: 0, to: end, by: 28800).map { $0 })
        // The chime's own samples from its frame on (the render's last 5 ms fade what follows it: silence).
        #expect(Array(samples[end..<(end + chime.count)]) == chime)
        #expect(samples[(end + chime.count)...].allSatisfy { $0 == 0 })
        #expect(result.standardOutput.hasSuffix(": 8.405 s, 48000 Hz mono float\n"), "\(result.standardOutput)")
    }

    @Test("--practice 4s at 120 BPM: 192000 is a downbeat, so the chime starts there (at or after)")
    func practiceEndsOnAnExactDownbeat() throws {
        let scratch = try Scratch()
        let samples = try Self.render(["--bpm", "120", "--practice", "4s"], to: scratch.file("p.wav")).samples
        let chime = ClickSynthesizer.practiceEndSound(sampleRate: .standard).channel(0)
        #expect(onsets(samples) == stride(from: 0, through: 192_000, by: 24000).map { $0 })
        #expect(Array(samples[192_000..<(192_000 + chime.count)]) == chime)
        #expect(samples.count == 192_000 + chime.count + 240)
    }

    @Test(
        "Bad practice values and combinations: one line naming the option, the value and what is allowed; exit 64, nothing written",
        arguments: [
            (
                ["--practice", "20"],
                "--practice 20: the practice time is hours, minutes and seconds with their units (20m, 90s, 1h30m, 1.5m), from 1s to 24h"
            ),
            (
                ["--practice", "0.5s"],
                "--practice 0.5s: the practice time is hours, minutes and seconds with their units (20m, 90s, 1h30m, 1.5m), from 1s to 24h"
            ),
            (
                ["--practice", "24h1s"],
                "--practice 24h1s: the practice time is hours, minutes and seconds with their units (20m, 90s, 1h30m, 1.5m), from 1s to 24h"
            ),
            (
                ["--practice", "30m1h"],
                "--practice 30m1h: the practice time is hours, minutes and seconds with their units (20m, 90s, 1h30m, 1.5m), from 1s to 24h"
            ),
            (["--practice", "20m", "--bars", "4"], "--bars and --practice cannot be used together; choose one"),
            (
                ["--practice", "20m", "--duration", "9"],
                "--duration and --practice cannot be used together; choose one"
            ),
            (
                ["--random-mute", "1"],
                "--random-mute 1: the random mute is a chance between 0 and 1 (0.25) or a percentage between 0% and 100% (25%)"
            ),
            (
                ["--random-mute", "0%"],
                "--random-mute 0%: the random mute is a chance between 0 and 1 (0.25) or a percentage between 0% and 100% (25%)"
            ),
            (
                ["--random-mute", "many"],
                "--random-mute many: the random mute is a chance between 0 and 1 (0.25) or a percentage between 0% and 100% (25%)"
            ),
            (
                ["--random-mute", "25%", "--mute-seed", "-1"],
                "--mute-seed -1: the seed must be a whole number from 0"
            ),
            (["--mute-seed", "5"], "--mute-seed 5: --mute-seed applies only with --random-mute"),
            (
                ["--practice", "1m", "-o", "x.mid"],
                "--practice 1m: x.mid is a MIDI file, which holds no audio; leave --practice out"
            ),
        ])
    func badValues(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let output = arguments.contains("-o") ? [] : ["-o", scratch.file("out.wav")]
        let result = try CommandRunner.run(["--bpm", "120"] + arguments + output)
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
        #expect(result.standardOutput == "")
        #expect(scratch.contents == [])
    }

    @Test(
        "1h30m, 90s, 1.5m, 24h and 25%, 0.25, 12.5%: the timer's length in seconds, the mute's chance, the seed's line")
    func goodValues() throws {
        for (text, seconds) in [("1h30m", 5400.0), ("90s", 90), ("1.5m", 90), ("1h", 3600), ("24h", 86400)] {
            #expect(try SettingText.practiceDuration(text) == seconds, "\(text)")
        }
        for (text, chance) in [("25%", 0.25), ("0.25", 0.25), ("12.5%", 0.125), (".5", 0.5)] {
            #expect(try SettingText.muteProbability(text) == chance, "\(text)")
        }
        #expect(
            SettingForm.randomMuteLine(RandomMute(probability: 0.125, seed: 3))
                == "metronome: random mute 12.5%, seed 3 (--mute-seed 3 repeats it)\n")
    }

    @Test("A pattern file with --practice (endless, so it needs a length to render) renders to the chime")
    func patternPractice() throws {
        let scratch = try Scratch()
        let pattern = scratch.file("loop.metro")
        try "tempo 120\nmeter 3/4\nforever\n".write(toFile: pattern, atomically: true, encoding: .utf8)
        let samples = try Self.render(["play", pattern, "--practice", "2s"], to: scratch.file("p.wav")).samples
        // Bars of 72000 frames: 96000 falls in bar 2, so the chime is on bar 3's downbeat, 144000.
        let chime = ClickSynthesizer.practiceEndSound(sampleRate: .standard).channel(0)
        #expect(onsets(samples) == stride(from: 0, through: 144_000, by: 24000).map { $0 })
        #expect(Array(samples[144_000..<(144_000 + chime.count)]) == chime)
    }

    @Test("A MIDI export leaves a muted bar's click notes out, as a render leaves it silent: seed 5 at 50% over 8 bars")
    func midiExport() throws {
        let scratch = try Scratch()
        let path = scratch.file("drill.mid")
        let result = try CommandRunner.run([
            "--bpm", "120", "--bars", "8", "--count-in", "1", "--random-mute", "0.5", "--mute-seed", "5", "--quiet",
            "-o", path,
        ])
        #expect(result.status == 0)
        let sequence = try MIDIFile(parsing: Array(FileManager.default.contents(atPath: path)!)).timeline()
        let bars = sequence.events.filter { !$0.event.isNoteOff }.map {
            Int($0.position.ticks / Position.ticksPerQuarter / 4)
        }
        // Bar 0 of the file is the count-in; bars 2, 3, 4 and 5 of music (3 to 6 of the file) are muted.
        #expect(bars == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 7, 7, 7, 7, 8, 8, 8, 8])
    }
}
