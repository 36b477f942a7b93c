import Foundation
import MetronomeMIDI
import MetronomeModel
import MetronomeTestSupport
import Testing

@Suite("-o FILE.mid: MIDI export from the command line")
struct MIDIExportTests {
    /// Reads a file with mido and prints, per message, the track, the absolute tick and the message.
    static let midoScript = #"""
        import sys, mido
        song = mido.MidiFile(sys.argv[1])
        print(song.type, song.ticks_per_beat, len(song.tracks))
        for index, track in enumerate(song.tracks):
            now = 0
            for message in track:
                now += message.time
                print(index, now, repr(message.copy(time=0)))
        """#

    @Test("The main click: 2 bars at 120 with a count-in, a summary line, the file and nothing else")
    func click() throws {
        let scratch = try Scratch()
        let path = scratch.file("click.mid")
        let result = try CommandRunner.run(["--bpm", "120", "--bars", "2", "--count-in", "1", "-o", path])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(
            result.standardOutput == "wrote \(path): 2 bars, 6.000 s, MIDI format 1, 2 tracks, 960 ticks per quarter\n")
        #expect(scratch.contents == ["click.mid"])
        let file = try MIDIFile(parsing: Array(FileManager.default.contents(atPath: path)!))
        #expect(file.tracks.map(\.name) == ["click.mid", "Click"])
        let sequence = try file.timeline()
        #expect(sequence.markers.map(\.name) == ["count-in"])
        let ons = sequence.events.filter { !$0.event.isNoteOff }
        let quarters = (0..<12).map { (beat: Int) -> Int64 in Int64(beat) * Position.ticksPerQuarter }
        #expect(ons.map(\.position.ticks) == quarters)
        let keys: [Int] = [37, 37, 37, 37, 76, 77, 77, 77, 76, 77, 77, 77]
        let expectedEvents = keys.enumerated().map { (click: (offset: Int, element: Int)) -> MIDIEvent in
            let index = click.offset
            let velocity: UInt8 = [0, 4, 8].contains(index) ? 127 : index < 4 ? 106 : 100
            return .noteOn(channel: 9, key: UInt8(click.element), velocity: velocity)
        }
        #expect(ons.map(\.event) == expectedEvents)
    }

    @Test(
        "mido reads a whole song: its tempo steps, meters, markers and clicks",
        .enabled(if: midoRuns, "mido is not installed: run .ci/install-packages, or python3 -m pip install mido"))
    func mido() throws {
        let scratch = try Scratch()
        let path = scratch.file("song.MIDI")
        #expect(try CommandRunner.run(["play", "song", "--quiet", "-o", path]).status == 0)
        let read = try ChildProcess("/usr/bin/env", ["python3", "-c", Self.midoScript, path]).wait()
        try #require(read.status == 0, "mido could not read the export: \(read.standardError)")
        let lines = read.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines[0] == "1 960 2")
        #expect(lines[1] == "0 0 MetaMessage('track_name', name='song.MIDI', time=0)")
        let markers = lines.filter { $0.contains("'marker'") }.map { $0.split(separator: "'")[3] }
        #expect(
            markers == [
                "count-in", "intro", "verse", "chorus", "verse", "chorus", "bridge", "build", "outro", "ending",
            ])
        #expect(lines.filter { $0.contains("'time_signature'") }.count == 5)
        // Steady sections: one tempo each; the two ramps: a step every 32nd note.
        #expect(lines.filter { $0.hasPrefix("0 0 MetaMessage('set_tempo', tempo=535714") }.count == 1)
        #expect(lines.filter { $0.contains("'set_tempo'") }.count > 2 * 8 * 8)
        #expect(lines.filter { $0.hasPrefix("1 ") && $0.contains("'note_on', channel=9") }.count > 150)
        #expect(!lines.contains { $0.hasPrefix("1 ") && $0.contains("'note_on'") && !$0.contains("channel=9,") })
    }

    @Test("arp and chord: note tracks on channel 1 with the instrument's General MIDI program")
    func notes() throws {
        let scratch = try Scratch()
        let arp = scratch.file("arp.mid")
        #expect(try CommandRunner.run(["arp", "C Am", "--bars", "2", "--click", "--quiet", "-o", arp]).status == 0)
        let arpFile = try MIDIFile(parsing: Array(FileManager.default.contents(atPath: arp)!))
        #expect(arpFile.tracks.map(\.name) == ["arp.mid", "Click", "Arpeggio"])
        #expect(arpFile.tracks[2].events[1].event == .programChange(channel: 0, program: 0))
        // 1/16 up over C E G: 32 steps in 2 bars, every 240 ticks.
        let steps = arpFile.tracks[2].events.filter { if case .noteOn = $0.event { true } else { false } }
        let expected = (0..<32).map { (step: Int) -> Int64 in Int64(step) * 240 }
        #expect(steps.map(\.ticks) == expected)

        let chord = scratch.file("chord.mid")
        #expect(try CommandRunner.run(["chord", "Cmaj7", "--instrument", "organ", "--quiet", "-o", chord]).status == 0)
        let chordFile = try MIDIFile(parsing: Array(FileManager.default.contents(atPath: chord)!))
        #expect(chordFile.tracks.map(\.name) == ["chord.mid", "Chord"])
        let events = chordFile.tracks[1].events.map(\.event)
        #expect(events[1] == .programChange(channel: 0, program: 16))
        #expect(events[2..<6] == [60, 64, 67, 71].map { .noteOn(channel: 0, key: $0, velocity: 100) }[...])
        // Held 2 s at the default 120 BPM: four quarter notes.
        #expect(chordFile.tracks[1].events[6].ticks == 3840)
    }

    @Test(
        "--bpm 112 --bars 4 -o x.mid: one tempo event (535,714 µs) by default; --midi-tempo exact: beat steps of 535,714 and 535,715; --midi-tempo elsewhere or unknown: exit 64 in one line"
    )
    func midiTempo() throws {
        let scratch = try Scratch()
        let path = scratch.file("x.mid")
        func tempos(_ extra: [String]) throws -> [UInt32] {
            let result = try CommandRunner.run(["--bpm", "112", "--bars", "4", "--quiet", "-o", path] + extra)
            try #require(result.status == 0, "\(result.standardError)")
            let file = try MIDIFile(parsing: Array(try #require(FileManager.default.contents(atPath: path))))
            return file.tracks[0].events.compactMap { event -> UInt32? in
                if case .tempo(let microseconds) = event.event { microseconds } else { nil }
            }
        }
        #expect(try tempos([]) == [535_714])
        #expect(try tempos(["--midi-tempo", "steady"]) == [535_714])
        let exact = try tempos(["--midi-tempo", "exact"])
        #expect(exact.count > 1 && Set(exact) == [535_714, 535_715], "\(exact)")
        let wav = scratch.file("x.wav")
        let cases: [([String], String)] = [
            (
                ["--bars", "1", "--midi-tempo", "exact"],
                "--midi-tempo exact: --midi-tempo applies only with --output FILE.mid"
            ),
            (
                ["--bars", "1", "-o", wav, "--midi-tempo", "exact"],
                "--midi-tempo exact: --midi-tempo applies only to a MIDI file; \(wav) is audio"
            ),
            (
                ["--bars", "1", "-o", path, "--midi-tempo", "fast"],
                "--midi-tempo fast: the MIDI tempo is steady or exact"
            ),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == "metronome: error: \(message)\n")
        }
        #expect(!FileManager.default.fileExists(atPath: wav))
    }

    @Test(
        "Options that shape only audio, unknown extensions, endless clicks and tempos MIDI cannot hold: exit 64, no file"
    )
    func refused() throws {
        let scratch = try Scratch()
        let path = scratch.file("x.mid")
        let cases: [([String], String)] = [
            (
                ["--format", "pcm16"],
                "--format pcm16: \(path) is a MIDI file, which holds no audio; leave --format out"
            ),
            (
                ["--sample-rate", "44100"],
                "--sample-rate 44100: \(path) is a MIDI file, which holds no audio; leave --sample-rate out"
            ),
            (["--channels", "1"], "--channels 1: \(path) is a MIDI file, which holds no audio; leave --channels out"),
            (["--volume", "0.5"], "--volume 0.5: \(path) is a MIDI file, which holds no audio; leave --volume out"),
            (["--gain-db", "-6"], "--gain-db -6: \(path) is a MIDI file, which holds no audio; leave --gain-db out"),
            (["--voices", "8"], "--voices 8: \(path) is a MIDI file, which holds no audio; leave --voices out"),
        ]
        for (extra, message) in cases {
            let result = try CommandRunner.run(["--bpm", "120", "--bars", "1", "-o", path] + extra)
            #expect(result.status == 64)
            #expect(result.standardError == "metronome: error: \(message)\n")
        }
        let endless = try CommandRunner.run(["--bpm", "120", "-o", path])
        #expect(endless.status == 64)
        #expect(
            endless.standardError
                == "metronome: error: --output needs --bars N or --duration SECONDS: an endless click cannot be written "
                + "to a file\n")
        let slow = try CommandRunner.run(["--bpm", "3", "--bars", "1", "-o", path])
        #expect(slow.status == 64)
        #expect(
            slow.standardError
                == "metronome: error: --output \(path): tempo 3 BPM: a MIDI file cannot hold a tempo below 3.58 BPM "
                + "(16777215 µs per quarter note)\n")
        let unknown = try CommandRunner.run(["--bpm", "120", "--bars", "1", "-o", scratch.file("x.mp3")])
        #expect(unknown.status == 64)
        #expect(
            unknown.standardError
                == "metronome: error: --output \(scratch.file("x.mp3")): unknown file type; the name must end in .wav, "
                + ".flac, .ogg, .aiff or .mid\n")
        #expect(scratch.contents == [])
    }

    @Test("A missing folder: exit 73, nothing left; a symbolic link is written through and stays a link")
    func destinations() throws {
        let scratch = try Scratch()
        let missing = scratch.file("none/x.mid")
        let result = try CommandRunner.run(["--bpm", "120", "--bars", "1", "-o", missing])
        #expect(result.status == 73)
        #expect(
            result.standardError == "metronome: error: \(missing): cannot create output: No such file or directory\n")
        #expect(scratch.contents == [])
        let link = scratch.file("link.mid")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.mid")
        #expect(try CommandRunner.run(["--bpm", "120", "--bars", "1", "--quiet", "-o", link]).status == 0)
        #expect(scratch.contents == ["link.mid", "target.mid"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.mid")
        #expect(
            try MIDIFile(parsing: Array(FileManager.default.contents(atPath: scratch.file("target.mid"))!)).tracks.count
                == 2)
    }

    /// Whether to run the mido test: when python3 imports mido, and always under .ci/test (a missing mido fails).
    static let midoRuns: Bool = {
        if ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil { return true }
        guard let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import mido"]) else { return false }
        return child.wait().status == 0
    }()
}
