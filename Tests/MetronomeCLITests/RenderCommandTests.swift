import Foundation
import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import MetronomeTestSupport
import Testing

@Suite("Rendering from the command line")
struct RenderCommandTests {
    @Test("2 bars at 120 BPM: 192000 stereo float frames, a click every 24000, accent louder")
    func renderTwoBars() throws {
        let scratch = try Scratch()
        let path = scratch.file("click.wav")
        let result = try CommandRunner.run(["--bpm", "120", "--bars", "2", "--output", path])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput == "wrote \(path): 2 bars, 4.000 s, 48000 Hz stereo float\n")
        let audio = try AudioFileReader.read(path: path)
        #expect(audio.channels.count == 2)
        #expect(audio.frameCount == 192_000)
        #expect(onsets(audio.channels[0]) == (0..<8).map { $0 * 24000 })
        let accentPeak = audio.channels[0][0..<4000].map(abs).max()!
        let normalPeak = audio.channels[0][24000..<28000].map(abs).max()!
        #expect(accentPeak > normalPeak)
        #expect(audio.channels[0] == audio.channels[1])
        #expect(scratch.contents == ["click.wav"])
    }

    @Test(
        "Meter, accents, subdivisions, mono 16-bit FLAC and a sound choice", arguments: ["flac", "aiff", "ogg", "wav"])
    func renderOptions(ext: String) throws {
        let scratch = try Scratch()
        let path = scratch.file("odd.\(ext)")
        var arguments = [
            "--bpm", "90", "--meter", "7/8", "--accent", "X.xXx.x", "--subdivide", "2", "--bars", "3",
            "--sound", "beep", "--channels", "1", "--sample-rate", "44100", "--quiet", "--output", path,
        ]
        if ext != "ogg" { arguments += ["--format", "pcm16"] }
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0)
        #expect(result.standardOutput == "")
        let audio = try AudioFileReader.read(path: path)
        #expect(audio.channels.count == 1)
        #expect(audio.sampleRate == 44100)
        // 3 bars of 7 eighths at 90 quarter notes per minute: 21 × 240/(90·8) s = 7 s.
        #expect(audio.frameCount == 7 * 44100)
        if ext != "ogg" {
            // An eighth lasts 14700 frames; its off-beat subdivision 7350 frames later. Silent beats keep their
            // subdivisions.
            var expected: [Int] = []
            for bar in 0..<3 {
                for (beat, letter) in "X.xXx.x".enumerated() {
                    let frame = (bar * 7 + beat) * 14700
                    if letter != "." { expected.append(frame) }
                    expected.append(frame + 7350)
                }
            }
            #expect(onsets(audio.channels[0], gap: 500) == expected)
        }
    }

    @Test(
        "A bare tempo first is --bpm (klick's `metronome 120`); given with --bpm too it is exit 64 and nothing is written"
    )
    func bareTempo() throws {
        let scratch = try Scratch()
        let bare = scratch.file("bare.wav")
        let option = scratch.file("option.wav")
        #expect(try CommandRunner.run(["90.5", "--bars", "2", "--quiet", "--output", bare]).status == 0)
        #expect(try CommandRunner.run(["--bpm", "90.5", "--bars", "2", "--quiet", "--output", option]).status == 0)
        #expect(try AudioFileReader.read(path: bare).channels == AudioFileReader.read(path: option).channels)
        let twice = try CommandRunner.run(["120", "--bpm", "100", "--bars", "1", "--output", scratch.file("x.wav")])
        #expect(twice.status == 64)
        #expect(
            twice.standardError == "metronome: error: --bpm given twice: as the first argument (120) and as --bpm\n")
        let bad = try CommandRunner.run(["12x", "--bars", "1", "--output", scratch.file("x.wav")])
        #expect(bad.status == 64)
        #expect(
            bad.standardError
                == "metronome: error: --bpm 12x: tempo must be a number from 1 to 1000 (quarter notes per minute)\n")
        #expect(scratch.contents.sorted() == ["bare.wav", "option.wav"])
    }

    @Test("--duration renders exactly that many seconds; --volume scales by volume³")
    func durationAndVolume() throws {
        let scratch = try Scratch()
        let loud = scratch.file("loud.wav")
        let quiet = scratch.file("quiet.wav")
        #expect(try CommandRunner.run(["--duration", "1.5", "--quiet", "--output", loud]).status == 0)
        #expect(
            try CommandRunner.run(["--duration", "1.5", "--volume", "0.5", "--quiet", "--output", quiet]).status == 0)
        let a = try AudioFileReader.read(path: loud).channels[0]
        let b = try AudioFileReader.read(path: quiet).channels[0]
        #expect(a.count == 72000)
        for index in stride(from: 0, to: 72000, by: 97) where abs(a[index]) > 0.01 {
            #expect(abs(b[index] - a[index] * 0.125) < 1e-6)
        }
    }

    @Test("Your own sample files play at the click frames")
    func soundFiles() throws {
        let scratch = try Scratch()
        let sample = scratch.file("tick.flac")
        let writer = try AudioFileWriter(
            path: sample, container: .flac, sampleType: .pcm24, channels: 1, sampleRate: SampleRate(44100))
        let tick = (0..<441).map { (index: Int) -> Float in
            let time = Double(index)
            return Float(0.5 * cos(time * 0.3) * exp(-time / 80))
        }
        try tick.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 441) }
        try writer.finish()
        let out = scratch.file("out.wav")
        let result = try CommandRunner.run(["--bars", "1", "--sound-file", sample, "--quiet", "--output", out])
        #expect(result.status == 0)
        let audio = try AudioFileReader.read(path: out)
        #expect(onsets(audio.channels[0]) == [0, 24000, 48000, 72000])
        let accent = audio.channels[0][0..<600].map(abs).max()!
        let normal = audio.channels[0][24000..<24600].map(abs).max()!
        #expect(abs(normal / accent - 0.7) < 1e-3)
    }

    @Test("SIGINT during a long render: exit 130, no file, no temporary file")
    func interruptedRenderLeavesNothing() throws {
        let scratch = try Scratch()
        let path = scratch.file("long.wav")
        let command = try CommandRunner.start(["--bars", "20000", "--subdivide", "4", "--output", path])
        // Wait until the temporary file exists, then interrupt.
        let deadline = Date().addingTimeInterval(10)
        while scratch.contents.isEmpty && Date() < deadline { usleep(10_000) }
        #expect(scratch.contents.count == 1)
        command.send(SIGINT)
        let result = command.wait()
        #expect(result.status == 130)
        #expect(result.standardError == "metronome: error: interrupted; \(path) was not written\n")
        #expect(scratch.contents == [])
    }

    @Test("metronome sounds lists the built-in sounds")
    func soundsList() throws {
        let result = try CommandRunner.run(["sounds"])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                wood     woodblock strike (default)
                beep     sine beep, like a quartz metronome
                clave    bright clave
                cowbell  two-tone cowbell

                piano    instrument: plucked piano-like tone, rendered at a root every 6 semitones (built in)
                organ    instrument: sustained organ-like tone, looped until released (built in)

                """)
    }
}

@Suite("Progress on a terminal")
struct ProgressTests {
    @Test("A long render on a terminal draws a progress bar on stderr; Ctrl-C there still leaves nothing")
    func progressBarOnTerminal() throws {
        let scratch = try Scratch(inMemory: true)
        let path = scratch.file("tty-\(UUID().uuidString).wav")
        // script(1) gives the command a pseudo-terminal; its output is what the terminal would show.
        let inner = "\(CommandRunner.executable) --bars 20000 --channels 1 --format pcm16 --output \(path)"
        let terminal = try ChildProcess("/usr/bin/script", ["-qfec", inner, "/dev/null"])
        let deadline = Date().addingTimeInterval(20)
        // Until the bar has its first '#' (2.5 %): at once on a release build, after a few seconds under a sanitizer.
        while !terminal.output.contains("\r[#"), Date() < deadline { usleep(20_000) }
        let screen = terminal.output
        #expect(screen.contains("\r[#"))
        #expect(screen.contains("%"))
        // Interrupt the renderer itself (the terminal's Ctrl-C would reach it the same way).
        try ChildProcess("/usr/bin/pkill", ["-INT", "-f", "^" + inner]).wait()
        let result = terminal.wait()
        #expect(result.standardOutput.contains("metronome: error: interrupted; \(path) was not written"))
        #expect(scratch.contents == [])
    }

    @Test("Nothing but the summary reaches a pipe: no progress bar, no escape codes")
    func noEscapeCodesInPipes() throws {
        let scratch = try Scratch()
        let result = try CommandRunner.run(["--bars", "400", "--output", scratch.file("a.wav")])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(!result.standardOutput.contains("\u{1B}"))
        #expect(!result.standardOutput.contains("\r"))
    }

    @Test("--verbose, the one live-playback option a render takes, changes nothing in it")
    func verboseRender() throws {
        let scratch = try Scratch()
        let path = scratch.file("a.wav")
        let plain = try CommandRunner.run(["--bars", "1", "--output", path])
        let bytes = FileManager.default.contents(atPath: path)
        try FileManager.default.removeItem(atPath: path)
        let verbose = try CommandRunner.run(["--bars", "1", "--verbose", "--output", path])
        #expect(plain.status == 0)
        #expect(verbose.status == 0)
        #expect(verbose.standardError == "")
        #expect(verbose.standardOutput == plain.standardOutput)
        #expect(bytes != nil)
        #expect(FileManager.default.contents(atPath: path) == bytes)
        #expect(scratch.contents == ["a.wav"])
    }
}

@Suite("Count-in")
struct CountInTests {
    @Test("--count-in 1 renders one bar of the count-in sound before bar 1")
    func countInRender() throws {
        let scratch = try Scratch()
        let path = scratch.file("count.wav")
        let result = try CommandRunner.run([
            "--bpm", "120", "--bars", "1", "--count-in", "1", "--quiet", "--channels", "1", "--output", path,
        ])
        #expect(result.status == 0)
        let audio = try AudioFileReader.read(path: path).channels[0]
        #expect(audio.count == 2 * 96000)
        let beats = (0..<8).map { (beat: Int) -> Int in beat * 24000 }
        #expect(onsets(audio) == beats)
        let countIn = ClickSynthesizer.countInSound(sampleRate: .standard).channel(0)
        let accent = ClickSynthesizer.clickSet(.wood, sampleRate: .standard).accent.channel(0)
        #expect(Array(audio[0..<countIn.count]) == countIn)
        #expect(Array(audio[96000..<(96000 + accent.count)]) == accent)
        let bad = try CommandRunner.run(["--count-in", "20"])
        #expect(bad.status == 64)
        #expect(
            bad.standardError
                == "metronome: error: --count-in 20: the count-in must be a whole number of bars from 0 to 16\n")
    }
}

@Suite("Tempo-map files: play and check")
struct TempoMapFileTests {
    static let song =
        "intro: 2 4/4 120 Xxxx\nverse: 4 7/8 100-140 X.xX.x. 0.8\n3 3/4 90,100,110,120,130,140,150,160,170\n"

    @Test("check prints the sections and the total")
    func check() throws {
        let scratch = try Scratch()
        let path = scratch.file("song.klick")
        try TempoMapFileTests.song.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["check", path])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                #  label  bars  start bar  start time  meter  tempo              clicks
                1  intro     2          1    0:00.000  4/4    120                Xxxx
                2  verse     4          3    0:04.000  7/8    100-140            X.xX.x., volume 0.8
                3  -         3          7    0:11.066  3/4    90…170 (per beat)  Xxx
                total: 9 bars, 0:15.396

                """)
    }

    @Test("play --output renders the whole map; --bars cuts it at a bar line")
    func playRenders() throws {
        let scratch = try Scratch()
        let path = scratch.file("song.klick")
        try TempoMapFileTests.song.write(toFile: path, atomically: true, encoding: .utf8)
        var result = try CommandRunner.run(["play", path, "--quiet", "--output", scratch.file("all.wav")])
        #expect(result.status == 0)
        #expect(try AudioFileReader.read(path: scratch.file("all.wav")).frameCount == 739_012)
        result = try CommandRunner.run(["play", path, "--bars", "2", "--quiet", "--output", scratch.file("two.wav")])
        #expect(result.status == 0)
        #expect(try AudioFileReader.read(path: scratch.file("two.wav")).frameCount == 192_000)
    }

    @Test("A malformed file: FILE:LINE:COLUMN, the line, a caret; exit 65; nothing written")
    func malformed() throws {
        let scratch = try Scratch()
        let path = scratch.file("bad.klick")
        try "4 4/4 120\n2 4/3 100\n".write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["check", path], ["play", path, "--output", scratch.file("out.wav")]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 65)
            #expect(
                result.standardError
                    == "\(path):2:3: error: the beat unit must be 1, 2, 4, 8, 16 or 32\n2 4/3 100\n  ^\n")
        }
        #expect(scratch.contents == ["bad.klick"])
        let missing = try CommandRunner.run(["play", scratch.file("none.klick")])
        #expect(missing.status == 66)
        #expect(missing.standardError == "metronome: error: \(scratch.file("none.klick")): no such file\n")
        let refused = try CommandRunner.run(["play", path, "--meter", "3/4"])
        #expect(refused.status == 64)
        #expect(
            refused.standardError
                == "metronome: error: --meter does not apply to 'play': the file sets the meter and accents of every section\n"
        )
    }
}
