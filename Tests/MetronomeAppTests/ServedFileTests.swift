import Foundation
import MetronomeApp
import MetronomeModel
import MetronomeTestSupport
import Testing

/// What `serve [FILE]` plays (`ServedFile`), chosen without the binary: MetronomeServeLiveTests plays each through
/// the command.
@Suite("MetronomeApp: what serve plays, chosen by the file")
struct ServedFileTests {
    /// A Standard MIDI File, format 0, 480 ticks a quarter: 120 BPM, middle C held for a quarter from the top.
    static let midiBytes: [UInt8] =
        Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + [0, 0, 0, 20]
        + [
            0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20, 0x00, 0x90, 60, 100, 0x83, 0x60, 0x80, 60, 0, 0x00, 0xFF, 0x2F,
            0x00,
        ]

    static func rate() throws(CommandLineError) -> SampleRate { .standard }

    @Test(
        "A MIDI file is told by its header, whatever its name, and played with its click on; any other name is the library's pattern; no file is the click"
    )
    func choice() throws {
        let scratch = try Scratch()
        let shipped = try Scratch()
        try "tempo 90\n".write(toFile: shipped.file("groove.metro"), atomically: true, encoding: .utf8)
        let library = PatternLibrary(shippedFolder: shipped.path)
        // Named like a pattern, read as MIDI: the header decides.
        let midi = scratch.file("groove.metro")
        try Data(Self.midiBytes).write(to: URL(fileURLWithPath: midi))
        guard case .midi(let playback) = try ServedFile(midi, library: library, sampleRate: Self.rate) else {
            Issue.record("\(midi) not served as MIDI")
            return
        }
        #expect(playback.path == midi)
        #expect(playback.click)
        guard case .pattern(let document) = try ServedFile("groove", library: library, sampleRate: Self.rate) else {
            Issue.record("groove not served as a pattern")
            return
        }
        #expect(document.path == shipped.file("groove.metro"))
        guard case .click = try ServedFile(nil, library: library, sampleRate: Self.rate) else {
            Issue.record("no file not served as the click")
            return
        }
    }

    @Test("The options' sample rate is asked for only for a MIDI file; a malformed one is exit 65 with its byte offset")
    func errors() throws {
        let scratch = try Scratch()
        let refusing: () throws(CommandLineError) -> SampleRate = { () throws(CommandLineError) in
            throw CommandLineError(.usage, "--rate 1: no")
        }
        // A pattern never asks: a bad rate is the plan's to refuse, in the order the options are checked.
        #expect(throws: Never.self) { try ServedFile("anything", library: PatternLibrary(), sampleRate: refusing) }
        let midi = scratch.file("song.mid")
        try Data(Self.midiBytes).write(to: URL(fileURLWithPath: midi))
        do {
            _ = try ServedFile(midi, library: PatternLibrary(), sampleRate: refusing)
            Issue.record("a MIDI file served without asking for the rate")
        } catch {
            #expect(error.status == .usage)
            #expect(error.message == "--rate 1: no")
        }
        // The header, then a track cut short.
        let cut = scratch.file("cut.mid")
        try Data(Array(Self.midiBytes.prefix(30))).write(to: URL(fileURLWithPath: cut))
        do {
            _ = try ServedFile(cut, library: PatternLibrary(), sampleRate: Self.rate)
            Issue.record("a cut MIDI file served")
        } catch {
            #expect(error.status == .dataError)
            #expect(error.message == "\(cut): error: at byte 18: the track chunk says 20 bytes but only 8 remain")
            #expect(!error.prefixed)
        }
    }
}
