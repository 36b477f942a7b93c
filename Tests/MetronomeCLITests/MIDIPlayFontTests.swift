import Foundation
import MetronomeFiles
import MetronomeMIDI
import MetronomeModel
import MetronomeTestSupport
import Testing

@Suite("play FILE.mid: which SoundFont plays, and real General MIDI files")
struct MIDIPlayFontTests {
    static let timidity = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    static let systemFont = "/usr/share/sounds/sf2/default-GM.sf2"
    static let blupi = "/usr/share/planetblupi/music"

    /// This process's environment without `METRONOME_SOUNDFONT`, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var result = ProcessInfo.processInfo.environment
        result["METRONOME_SOUNDFONT"] = nil
        return result.merging(extra) { $1 }
    }

    static let song = TestSong(
        division: .ticksPerQuarter(96), tempos: [(0, 500_001)], notes: [(0, 0, 60), (97, 0, 72), (250, 9, 38)])

    @Test("$METRONOME_SOUNDFONT names the font when --soundfont is not given; --soundfont wins over it")
    func environmentFont() throws {
        let scratch = try Scratch()
        let font = try ImpulseFont.write(in: scratch)
        let path = try Self.song.write("song.mid", in: scratch)
        let result = try MIDIPlay.render(
            path, [], in: scratch, environment: Self.environment(["METRONOME_SOUNDFONT": font]))
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(MIDIPlay.hits(result.samples).map(\.frame) == Self.song.noteFrames())
        // A font given on the command line is used instead (here: a malformed file named by the variable is ignored).
        let broken = scratch.file("broken.sf2")
        try Data("RIFF".utf8).write(to: URL(fileURLWithPath: broken))
        let given = try MIDIPlay.render(
            path, ["--soundfont", font], in: scratch, environment: Self.environment(["METRONOME_SOUNDFONT": broken]))
        #expect(given.status == 0)
        #expect(given.samples == result.samples)
    }

    @Test(
        "No font given and $METRONOME_SOUNDFONT unset or empty: the system's General MIDI font plays, silently chosen",
        .enabled(if: FileManager.default.fileExists(atPath: systemFont), "no system General MIDI font"))
    func systemFontFallback() throws {
        let scratch = try Scratch()
        let path = try Self.song.write("song.mid", in: scratch)
        let explicit = try MIDIPlay.render(path, ["--soundfont", Self.systemFont], in: scratch)
        #expect(explicit.samples.contains { $0 != 0 })
        for extra in [[:], ["METRONOME_SOUNDFONT": ""]] {
            let result = try MIDIPlay.render(path, [], in: scratch, environment: Self.environment(extra))
            #expect(result.status == 0)
            #expect(result.standardError == "")
            #expect(result.samples == explicit.samples)
        }
    }

    @Test("$METRONOME_SOUNDFONT=none: the built-in piano plays the notes, drums silent, and one line says so")
    func builtInFallback() throws {
        let scratch = try Scratch()
        let path = try Self.song.write("song.mid", in: scratch)
        let result = try MIDIPlay.render(
            path, [], in: scratch, environment: Self.environment(["METRONOME_SOUNDFONT": "none"]))
        #expect(result.status == 0)
        #expect(
            result.standardError
                == "metronome: no SoundFont (--soundfont, $METRONOME_SOUNDFONT or /usr/share/sounds/sf2/default-GM.sf2); "
                + "playing the built-in piano, drums silent\n")
        #expect(result.samples.contains { abs($0) > 0.01 })
        #expect(result.samples.allSatisfy { abs($0) <= 1 })
        // The drum note adds nothing: muting channel 10 changes no sample.
        let muted = try MIDIPlay.render(
            path, ["--mute", "10"], in: scratch, environment: Self.environment(["METRONOME_SOUNDFONT": "none"]))
        #expect(muted.samples == result.samples)
    }

    @Test(
        "arp with TimGM6mb's piano: not silent, no sample beyond ±1",
        .enabled(if: FileManager.default.fileExists(atPath: timidity), "timgm6mb-soundfont is not installed"))
    func arpeggio() throws {
        let scratch = try Scratch()
        let path = scratch.file("arp.wav")
        let result = try CommandRunner.run([
            "arp", "C Am", "--soundfont", Self.timidity, "--program", "0", "--bars", "2", "--quiet", "-o", path,
        ])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let audio = try AudioFileReader.read(path: path)
        for channel in audio.channels {
            #expect(channel.contains { abs($0) > 0.01 })
            #expect(channel.allSatisfy { abs($0) <= 1 })
        }
    }

    static let blupiFiles: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: blupi)) ?? []).filter { $0.hasSuffix(".mid") }.sorted()

    @Test(
        "Real General MIDI files (Debian's planetblupi-music-midi) with TimGM6mb: their opening and their last bar to the end plus 2 s, exit 0, sound, no sample beyond ±1",
        .enabled(if: FileManager.default.fileExists(atPath: timidity), "timgm6mb-soundfont is not installed"),
        arguments: blupiFiles)
    func realFiles(name: String) throws {
        let scratch = try Scratch()
        let path = Self.blupi + "/" + name
        let map = try MIDIFile(parsing: Array(FileManager.default.contents(atPath: path)!))
            .timeline(sampleRate: .standard).tempoMap
        let bars = try #require(map.barCount)
        let last = try #require(map.frame(ofBar: map.firstBar + bars - 1))
        let end = try #require(map.endFrame)
        for (options, frames) in [(["--duration", "8"], 384_000), (["--start-at", "\(bars)"], end - last + 96000)] {
            let result = try MIDIPlay.render(path, ["--soundfont", Self.timidity] + options, in: scratch)
            #expect(result.status == 0)
            #expect(result.standardError == "")
            #expect(result.samples.count == Int(frames), "\(options)")
            #expect(result.samples.allSatisfy { abs($0) <= 1 })
            if options[0] == "--duration" { #expect(result.samples.contains { abs($0) > 0.01 }) }
        }
    }
}
