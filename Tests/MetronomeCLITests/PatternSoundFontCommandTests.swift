import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("A pattern's note track through a SoundFont")
struct PatternSoundFontCommandTests {
    static let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    @Test("'instrument soundfont' in the file renders what --soundfont --program on the command line does")
    func fileDirectiveEqualsOptions() throws {
        let scratch = try Scratch()
        // A relative path is the file's folder's: the font is linked beside the pattern.
        try FileManager.default.createSymbolicLink(atPath: scratch.file("gm.sf2"), withDestinationPath: Self.font)
        let pattern = scratch.file("song.metro")
        try "instrument soundfont gm.sf2 program 4\ntempo 100\n2 bars chords C Am arp up 1/8\n".write(
            toFile: pattern, atomically: true, encoding: .utf8)
        let fromFile = scratch.file("file.wav")
        let fromOptions = scratch.file("options.wav")
        let first = try CommandRunner.run(["play", pattern, "-o", fromFile, "--quiet"])
        #expect(first.status == 0)
        #expect(first.standardError == "")
        let second = try CommandRunner.run([
            "play", pattern, "-o", fromOptions, "--quiet", "--soundfont", Self.font, "--program", "4",
        ])
        #expect(second.status == 0)
        let a = try AudioFileReader.read(path: fromFile).channels[0]
        let b = try AudioFileReader.read(path: fromOptions).channels[0]
        #expect(a == b)
        #expect(a.contains { abs($0) > 0.01 })
        #expect(a.allSatisfy { abs($0) <= 1 })
    }

    @Test("A missing font named by the file is exit 66 naming it; --instrument on the command line wins")
    func missingFont() throws {
        let scratch = try Scratch()
        let pattern = scratch.file("song.metro")
        try "instrument soundfont nope.sf2\n1 bars chords C\n".write(toFile: pattern, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["play", pattern, "-o", scratch.file("x.wav")])
        #expect(result.status == 66)
        #expect(result.standardError == "metronome: error: --soundfont \(scratch.file("nope.sf2")): no such file\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.wav")))
        let piano = try CommandRunner.run(["play", pattern, "-o", scratch.file("y.wav"), "--instrument", "piano"])
        #expect(piano.status == 0)
    }
}
