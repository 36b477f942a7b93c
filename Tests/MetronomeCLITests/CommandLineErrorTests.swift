import Foundation
import MetronomeTestSupport
import Testing

/// Bad input: one line naming the value and what is allowed, the sysexits status, and no output file.
@Suite("Command-line errors")
struct CommandLineErrorTests {
    static let usageCases: [([String], String)] = [
        (["--bpm", "0"], "--bpm 0: tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        (["--bpm", "-5"], "--bpm -5: tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        (["--bpm", "nan"], "--bpm nan: tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        (["--bpm", "inf"], "--bpm inf: tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        (["--bpm", "100000"], "--bpm 100000: tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        (
            ["--bpm", "3=60"],
            "--bpm 3=60: the beat unit before '=' is a note value 1, 2, 4, 8, 16 or 32, dotted with '.' (4.=60)"
        ),
        (["--bpm", "4.=800"], "--bpm 4.=800: tempo must come to 1 to 1000 quarter notes per minute (4.=60 is 90)"),
        (["--bpm", "8=x"], "--bpm 8=x: tempo must come to 1 to 1000 quarter notes per minute (4.=60 is 90)"),
        (["--meter", "4/3"], "--meter 4/3: the beat unit must be 1, 2, 4, 8, 16 or 32"),
        (["--meter", "0/4"], "--meter 0/4: the number of beats must be from 1 to 64"),
        (["--accent", "X.x"], "--accent X.x: the pattern has 3 beats but 4/4 needs 4"),
        (["--meter", "3/4", "--accent", "Xx.x"], "--accent Xx.x: the pattern has 4 beats but 3/4 needs 3"),
        (
            ["--accent", "Xyx."],
            "--accent Xyx.: letter 2 'y' is not one of X (accent), x (normal), o (soft), . (silent)"
        ),
        (["--bars", "0"], "--bars 0: the number of bars must be a whole number from 1 to 1000000"),
        (["--bars", "-3"], "--bars -3: the number of bars must be a whole number from 1 to 1000000"),
        (["--duration", "0"], "--duration 0: duration must be a number of seconds greater than 0, at most 86400"),
        (["--subdivide", "17"], "--subdivide 17: subdivision must be a whole number from 1 to 16"),
        (["--volume", "1.5"], "--volume 1.5: volume must be a number from 0 to 1"),
        (["--gain-db", "20"], "--gain-db 20: gain must be a number of dB from -96 to 12"),
        (["--volume", "0.5", "--gain-db", "-3"], "--volume and --gain-db cannot be used together; choose one"),
        (["--bars", "2", "--duration", "3"], "--bars and --duration cannot be used together; choose one"),
        (
            ["--sound", "gong"],
            "--sound gong: unknown sound; choose one of wood, beep, clave, cowbell (see 'metronome sounds')"
        ),
        (
            ["--sample-rate", "12345"],
            "--sample-rate 12345: sample rate must be one of 8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000"
        ),
        (["--channels", "3"], "--channels 3: channels must be 1 or 2"),
        (["--voices", "5000"], "--voices 5000: the voice pool must hold from 1 to 4096 voices"),
        (
            ["--format", "pcm8", "--bars", "1", "--output", "OUT.wav"],
            "--format pcm8: sample type must be pcm16, pcm24 or float"
        ),
        (
            ["--format", "float", "--bars", "1", "--output", "OUT.flac"],
            "--format float: a .flac file holds pcm24 or pcm16 samples"
        ),
        (
            ["--format", "pcm16", "--bars", "1", "--output", "OUT.ogg"],
            "--format pcm16: an .ogg file is always Ogg Vorbis; leave --format out"
        ),
        (
            ["--bars", "1", "--output", "OUT.mp3"],
            "--output OUT.mp3: unknown file type; the name must end in .wav, .flac, .ogg, .aiff or .mid"
        ),
        (
            ["--bars", "1", "--output", "OUT"],
            "--output OUT: unknown file type; the name must end in .wav, .flac, .ogg, .aiff or .mid"
        ),
        (
            ["--output", "OUT.wav"],
            "--output needs --bars N or --duration SECONDS: an endless click cannot be written to a file"
        ),
        (
            ["--bars", "1", "--latency", "40", "--output", "OUT.wav"],
            "--latency applies only to live playback, not with --output"
        ),
        (
            ["--bars", "1", "--lookahead", "50", "--output", "OUT.wav"],
            "--lookahead applies only to live playback, not with --output"
        ),
        (
            ["--bars", "1", "--device", "null", "--output", "OUT.mid"],
            "--device applies only to live playback, not with --output"
        ),
        (
            ["--sound-file", "a.wav,,b.wav"],
            "--sound-file a.wav,,b.wav: give one to three files separated by commas: ACCENT[,NORMAL[,SUB]]"
        ),
    ]

    @Test("Bad values exit 64 with one exact line and write nothing", arguments: usageCases)
    func usageErrors(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let resolved = arguments.map { $0.hasPrefix("OUT") ? scratch.file($0) : $0 }
        let result = try CommandRunner.run(resolved)
        let expected = "metronome: error: " + message.replacingOccurrences(of: "OUT", with: scratch.file("OUT")) + "\n"
        #expect(result.status == 64)
        #expect(result.standardError == expected)
        #expect(result.standardOutput == "")
        #expect(scratch.contents == [])
    }

    @Test("Unknown options get ArgumentParser's message plus a pointer to --help, exit 64")
    func unknownOption() throws {
        let result = try CommandRunner.run(["--bmp", "120"])
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "metronome: error: Unknown option '--bmp'. Did you mean '--bpm'?\nRun 'metronome --help' for the options.\n"
        )
    }

    @Test("Sample files: missing is 66; empty or garbled is 65; nothing is written")
    func sampleFileErrors() throws {
        let scratch = try Scratch()
        try Data().write(to: URL(fileURLWithPath: scratch.file("empty.wav")))
        try Data(repeating: 0x5A, count: 3000).write(to: URL(fileURLWithPath: scratch.file("garbled.wav")))
        let out = scratch.file("out.wav")
        let cases: [(String, Int32, String)] = [
            (scratch.file("missing.wav"), 66, "--sound-file \(scratch.file("missing.wav")): no such file"),
            (
                scratch.file("empty.wav"), 65,
                "--sound-file \(scratch.file("empty.wav")): the file holds no audio frames"
            ),
            (
                scratch.file("garbled.wav"), 65,
                "--sound-file \(scratch.file("garbled.wav")): not a readable audio file: Format not recognised."
            ),
        ]
        for (file, status, message) in cases {
            let result = try CommandRunner.run(["--bars", "1", "--sound-file", file, "--output", out])
            #expect(result.status == status)
            #expect(result.standardError == "metronome: error: \(message)\n")
        }
        #expect(scratch.contents == ["empty.wav", "garbled.wav"])
    }

    @Test("An output that cannot be created is 73 and leaves nothing")
    func unwritableOutput() throws {
        let scratch = try Scratch()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.file("plain")))
        let throughFile = scratch.file("plain/out.wav")
        var result = try CommandRunner.run(["--bars", "1", "--output", throughFile])
        #expect(result.status == 73)
        #expect(result.standardError == "metronome: error: \(throughFile): cannot create output: Not a directory\n")
        let missing = scratch.file("no/such/dir/out.flac")
        result = try CommandRunner.run(["--bars", "1", "--output", missing])
        #expect(result.status == 73)
        #expect(
            result.standardError == "metronome: error: \(missing): cannot create output: No such file or directory\n")
        result = try CommandRunner.run(["--bars", "1", "--output", scratch.path + "/.wav"])
        #expect(result.status == 0)
        result = try CommandRunner.run(["--bars", "1", "--output", scratch.path])
        #expect(result.status == 64)
        #expect(scratch.contents == [".wav", "plain"])
    }
}
