import Foundation
import MetronomeMIDI
import MetronomeTestSupport
import Testing

@Suite("play FILE.mid: bad files and options give the exact message and exit code, and write nothing")
struct MIDIPlayErrorTests {
    /// A valid file: markers 'intro' and 'verse', one note, two bars of 4/4 at 96 ticks per quarter note.
    static let song: [UInt8] = {
        var song = TestSong(notes: [(0, 0, 60)])
        song.markers = [(0, "intro"), (384, "verse")]
        song.messages = [(767, .controlChange(channel: 0, controller: 7, value: 100))]
        return song.file.bytes()
    }()

    /// Writes the inputs into `scratch`: song.mid, truncated.mid (the first 30 bytes), format2.mid (the header's
    /// format field set to 2) and broken.sf2 (a RIFF header promising more than it holds).
    static func inputs(in scratch: Scratch) throws {
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: scratch.file(name)))
        }
        try write("song.mid", song)
        try write("truncated.mid", Array(song[..<30]))
        var format2 = song
        format2[9] = 2
        try write("format2.mid", format2)
        try write("broken.sf2", Array("RIFF".utf8) + [16, 0, 0, 0] + Array("sfbkLIST".utf8))
    }

    @Test(
        "Exact message and exit code; the directory holds only the inputs afterwards",
        arguments: [
            (["play", "nothere.mid"], 66, "metronome: error: nothere.mid: no such file\n"),
            (
                ["play", "truncated.mid"], 65,
                "truncated.mid: error: at byte 18: the track chunk says 23 bytes but only 8 remain\n"
            ),
            (
                ["play", "format2.mid"], 65,
                "format2.mid: error: at byte 8: format 2 (independent sequences) is not supported; formats 0 and 1 are\n"
            ),
            (
                ["play", "song.mid", "--soundfont", "broken.sf2"], 65,
                "broken.sf2: error: at byte 4: the RIFF chunk is 16 bytes but the file holds 8 after its header\n"
            ),
            (
                ["play", "song.mid", "--soundfont", "missing.sf2"], 66,
                "metronome: error: --soundfont missing.sf2: no such file\n"
            ),
            (
                ["play", "song.mid", "--mute", "17"], 64,
                "metronome: error: --mute 17: give MIDI channels from 1 to 16 separated by commas\n"
            ),
            (
                ["play", "song.mid", "--solo", "1,,2"], 64,
                "metronome: error: --solo 1,,2: give MIDI channels from 1 to 16 separated by commas\n"
            ),
            (
                ["play", "song.mid", "--transpose", "99"], 64,
                "metronome: error: --transpose 99: the transposition must be a whole number from -48 to 48\n"
            ),
            (
                ["play", "song.mid", "--start-at", "nope"], 64,
                "metronome: error: --start-at nope: no such marker or bar; the file's markers are 'intro', 'verse'\n"
            ),
            (
                ["play", "song.mid", "--start-at", "3"], 64,
                "metronome: error: --start-at 3: the file has bars 1 to 2\n"
            ),
            (
                ["play", "song", "--click"], 64,
                "metronome: error: --click applies to MIDI files; a pattern always plays its click\n"
            ),
            (
                ["play", "song", "--mute", "10"], 64,
                "metronome: error: --mute applies to MIDI files; a pattern's notes are its chords\n"
            ),
            (
                ["play", "song.mid", "--program", "3"], 64,
                "metronome: error: --program 3 needs --soundfont: it chooses a SoundFont preset\n"
            ),
            (
                ["play", "song.mid", "--soundfont", "broken.sf2", "--program", "3"], 64,
                "metronome: error: --instrument, --bank and --program do not apply to a MIDI file: its channels choose their programs\n"
            ),
            (
                ["play", "song.mid", "--bpm", "100", "--tempo-scale", "2"], 64,
                "metronome: error: --bpm and --tempo-scale cannot be used together; choose one\n"
            ),
        ] as [([String], Int32, String)])
    func errors(arguments: [String], status: Int32, message: String) throws {
        let scratch = try Scratch()
        try Self.inputs(in: scratch)
        let before = scratch.contents
        let inScratch = { (argument: String) in
            argument.hasSuffix(".mid") || argument.hasSuffix(".sf2") ? scratch.file(argument) : argument
        }
        let result = try CommandRunner.run(arguments.map(inScratch) + ["-o", scratch.file("out.wav")])
        #expect(result.status == status)
        // Messages name the files as given: here, their paths in the scratch directory.
        var expected = message
        for name in ["nothere.mid", "truncated.mid", "format2.mid", "broken.sf2", "missing.sf2"] {
            expected = expected.replacingOccurrences(of: name, with: scratch.file(name))
        }
        #expect(result.standardError == expected)
        #expect(scratch.contents == before)
    }

    @Test("-o FILE.mid on a MIDI file: exit 64, nothing written")
    func midiOutput() throws {
        let scratch = try Scratch()
        try Self.inputs(in: scratch)
        let before = scratch.contents
        let (song, output) = (scratch.file("song.mid"), scratch.file("out.mid"))
        let result = try CommandRunner.run(["play", song, "-o", output])
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "metronome: error: --output \(output): \(song) is already a MIDI file; render it to audio (.wav, "
                + ".flac, .ogg, .aiff), or export a pattern, an arpeggio or the click to MIDI\n")
        #expect(scratch.contents == before)
    }

    @Test("A font named by $METRONOME_SOUNDFONT that is missing or malformed: the message names the variable")
    func environmentFont() throws {
        let scratch = try Scratch()
        try Self.inputs(in: scratch)
        let before = scratch.contents
        var environment = ProcessInfo.processInfo.environment
        for (font, status, message) in [
            (
                scratch.file("missing.sf2"), Int32(66),
                "metronome: error: $METRONOME_SOUNDFONT \(scratch.file("missing.sf2")): no such file\n"
            ),
            (
                scratch.file("broken.sf2"), 65,
                "\(scratch.file("broken.sf2")): error: at byte 4: the RIFF chunk is 16 bytes but the file holds 8 "
                    + "after its header\n"
            ),
        ] {
            environment["METRONOME_SOUNDFONT"] = font
            let result = try CommandRunner.run(
                ["play", scratch.file("song.mid"), "-o", scratch.file("out.wav")], environment: environment)
            #expect(result.status == status)
            #expect(result.standardError == message)
            #expect(scratch.contents == before)
        }
    }
}
