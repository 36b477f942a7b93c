import Foundation
import MetronomeFiles
import MetronomeKit
import Testing

/// Frames where sound starts after at least `gap` silent frames.
private func onsets(_ samples: [Float], gap: Int = 1000) -> [Int] {
    var result: [Int] = []
    var silent = gap
    for (index, value) in samples.enumerated() {
        if value != 0 {
            if silent >= gap { result.append(index) }
            silent = 0
        } else {
            silent += 1
        }
    }
    return result
}

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
        let tick = (0..<441).map { Float(0.5 * cos(Double($0) * 0.3) * exp(-Double($0) / 80)) }
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
        kill(command.process.processIdentifier, SIGINT)
        let result = try CommandRunner.finish(command)
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

                """)
    }
}

@Suite("Progress on a terminal")
struct ProgressTests {
    @Test("A long render on a terminal draws a progress bar on stderr; Ctrl-C there still leaves nothing")
    func progressBarOnTerminal() throws {
        let scratch = try Scratch()
        let path = scratch.file("tty-\(UUID().uuidString).wav")
        // script(1) gives the command a pseudo-terminal; its output is what the terminal would show.
        let inner = "\(CommandRunner.executable) --bars 20000 --channels 1 --format pcm16 --output \(path)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", inner, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = Pipe()
        try process.run()
        var seen = Data()
        let deadline = Date().addingTimeInterval(20)
        while !String(decoding: seen, as: UTF8.self).contains("%"), Date() < deadline {
            seen.append(output.fileHandleForReading.availableData)
        }
        let screen = String(decoding: seen, as: UTF8.self)
        #expect(screen.contains("\r[#"))
        #expect(screen.contains("%"))
        // Interrupt the renderer itself (the terminal's Ctrl-C would reach it the same way).
        let killer = Process()
        killer.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        killer.arguments = ["-INT", "-f", "^" + inner]
        try killer.run()
        killer.waitUntilExit()
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(
            String(decoding: seen, as: UTF8.self).contains("metronome: error: interrupted; \(path) was not written"))
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
}
