import Foundation
import MetronomeTestSupport
import Testing

/// What a render says before and after it writes: an existing file replaced is said in the summary; `--force`
/// belongs to an audio render only.
@Suite("Renders that say what they replace")
struct RenderSafetyTests {
    @Test(
        "Rendering onto an existing file replaces it and says so; the first render does not; --force without --output or with a MIDI file is exit 64"
    )
    func replacingAndForce() throws {
        let scratch = try Scratch()
        let path = scratch.file("take.wav")
        let first = try CommandRunner.run(["--bars", "1", "-o", path])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == "wrote \(path): 1 bar, 2.000 s, 48000 Hz stereo float\n")
        let second = try CommandRunner.run(["--bars", "1", "-o", path])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(
            second.standardOutput == "wrote \(path) (replacing the file there): 1 bar, 2.000 s, 48000 Hz stereo float\n"
        )
        let cases: [([String], String)] = [
            (["--bars", "1", "--force"], "--force applies only with --output FILE"),
            (
                ["--bars", "1", "--force", "-o", scratch.file("x.mid")],
                "--force: \(scratch.file("x.mid")) is a MIDI file, which holds no audio; leave --force out"
            ),
            (
                ["--bars", "1", "--force", "-o", scratch.file("x.flac")],
                "--force: \(scratch.file("x.flac")) is FLAC, whose size the sound decides and is not estimated; leave "
                    + "--force out"
            ),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == "metronome: error: \(message)\n")
        }
        #expect(scratch.contents == ["take.wav"])
        // A MIDI export says it too.
        let midi = scratch.file("take.mid")
        #expect(try CommandRunner.run(["--bars", "1", "-o", midi]).status == 0)
        let again = try CommandRunner.run(["--bars", "1", "-o", midi])
        #expect(
            again.standardOutput.hasPrefix("wrote \(midi) (replacing the file there): 1 bar, "),
            "\(again.standardOutput)")
    }

    @Test("The bare tempo takes the beat-unit form: metronome 4.=60 renders what --bpm 90 renders, byte for byte")
    func bareTempoOfAnotherBeat() throws {
        let scratch = try Scratch()
        let (a, b) = (scratch.file("a.wav"), scratch.file("b.wav"))
        #expect(try CommandRunner.run(["4.=60", "--meter", "6/8", "--bars", "2", "--quiet", "-o", a]).status == 0)
        #expect(
            try CommandRunner.run(["--bpm", "90", "--meter", "6/8", "--bars", "2", "--quiet", "-o", b]).status == 0)
        let bytes = FileManager.default.contents(atPath: a)
        #expect(bytes != nil && bytes == FileManager.default.contents(atPath: b))
    }
}
