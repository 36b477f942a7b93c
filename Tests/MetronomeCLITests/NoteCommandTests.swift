import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("arp and chord from the command line")
struct NoteCommandTests {
    @Test("arp renders a step on every beat's frame, each note silent again after gate + release")
    func arpFrames() throws {
        let scratch = try Scratch()
        let path = scratch.file("arp.wav")
        let result = try CommandRunner.run([
            "arp", "C Am", "--rate", "1/4", "--gate", "0.5", "--instrument", "organ", "--bars", "2", "--channels", "1",
            "-o", path,
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput == "wrote \(path): 2 bars, 4.000 s, 48000 Hz mono float\n")
        let samples = try AudioFileReader.read(path: path).channels[0]
        #expect(samples.count == 192_000)
        // The organ's attack starts at zero, so each note's first sounding frame is the one after its onset.
        #expect(onsets(samples) == (0..<8).map { $0 * 24000 + 1 })
        // Gate 0.5 of 24000 frames, then the 3840-frame release: silence from 15840 into each step.
        for step in 0..<8 {
            let base = step * 24000
            #expect(samples[(base + 15840)..<(base + 24000)].allSatisfy { $0 == 0 })
            #expect(samples[base + 15839] != 0)
        }
    }

    @Test("--click plays the metronome along; without it only the notes sound")
    func clickAlong() throws {
        let scratch = try Scratch()
        let with = scratch.file("with.wav")
        let without = scratch.file("without.wav")
        for (path, extra) in [(with, ["--click"]), (without, [])] {
            let result = try CommandRunner.run(
                ["arp", "C", "--rate", "1/4", "--gate", "0.05", "--instrument", "organ", "--bars", "1", "-o", path]
                    + extra)
            #expect(result.status == 0)
        }
        let a = try AudioFileReader.read(path: with).channels[0]
        let b = try AudioFileReader.read(path: without).channels[0]
        #expect(a[0] != 0)
        #expect(b[0] == 0)
        #expect(a != b)
    }

    @Test("chord: all notes on one frame, or strummed by exact offsets; held for --duration plus the release")
    func chord() throws {
        let scratch = try Scratch()
        let path = scratch.file("chord.wav")
        var result = try CommandRunner.run([
            "chord", "C", "--instrument", "organ", "--duration", "1", "--channels", "1", "--pan", "0", "-o", path,
        ])
        #expect(result.status == 0)
        // 1 s held + 0.08 s release + 0.05 s: 54240 frames.
        let samples = try AudioFileReader.read(path: path).channels[0]
        #expect(samples.count == 54240)
        #expect(samples.firstIndex { $0 != 0 } == 1)
        #expect(samples.lastIndex { $0 != 0 } == 48000 + 3840 - 1)
        // Strummed 100 ms and 200 ms apart: both play C4 alone until E4 enters at frame 4800 in the first; from
        // the frame after (the organ's attack starts at zero) they differ.
        var strums: [[Float]] = []
        for strum in ["100", "200"] {
            let strummed = scratch.file("strum-\(strum).wav")
            result = try CommandRunner.run([
                "chord", "C4+E4+G4", "--strum", strum, "--instrument", "organ", "--duration", "1", "--channels", "1",
                "--pan", "0", "-o", strummed,
            ])
            #expect(result.status == 0)
            strums.append(try AudioFileReader.read(path: strummed).channels[0])
        }
        #expect(strums[0].firstIndex { $0 != 0 } == 1)
        #expect(strums[0][..<4801] == strums[1][..<4801])
        #expect(strums[0][4801] != strums[1][4801])
    }

    @Test(
        "Bad chords and options: exact message, exit 64, nothing written",
        arguments: [
            (
                ["arp", "C Am Hm7"],
                "metronome: error: Hm7: chord 3 of the progression: a chord starts with its root A-G (with # or b) (H is written B here, Bb for the German B), or is N.C. or explicit notes\n"
            ),
            (
                ["chord", "Hmaj7"],
                "metronome: error: Hmaj7: a chord starts with its root A-G (with # or b) (H is written B here, Bb for the German B), or is N.C. or explicit notes\n"
            ),
            (
                ["arp", "C", "--style", "sideways"],
                "metronome: error: --style sideways: unknown style; choose one of up, down, upDown, downUp, alternateUp, alternateDown, random, randomOnce, randomWalk, asPlayed, converge, diverge\n"
            ),
            (
                ["arp", "C", "--rate", "1/12"],
                "metronome: error: --rate 1/12: the rate must be 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32\n"
            ),
            (["arp", "C", "--gate", "0"], "metronome: error: --gate 0: the gate must be a number from 0.05 to 1\n"),
            (
                ["arp", "C", "--octaves", "5"],
                "metronome: error: --octaves 5: octaves must be a whole number from 1 to 4\n"
            ),
            (
                ["arp", "C", "--rate", "1/8T", "--swing", "50"],
                "metronome: error: --swing 50: swing applies to straight rates, not 1/8T\n"
            ),
            (["chord", "C Am"], "metronome: error: C Am: give one chord (use 'metronome arp' for a progression)\n"),
            (
                ["chord", "C", "--strum", "-1"],
                "metronome: error: --strum -1: the strum must be 0 to 1000 milliseconds\n"
            ),
            (
                ["chord", "C", "--instrument", "harp"],
                "metronome: error: --instrument harp: unknown instrument; choose one of piano, organ\n"
            ),
        ])
    func errors(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let output = ["-o", scratch.file("out.wav")]
        let result = try CommandRunner.run(arguments + (arguments[0] == "arp" ? ["--bars", "1"] + output : output))
        #expect(result.status == 64)
        #expect(result.standardError == message)
        #expect(scratch.contents == [])
    }
}
