import Foundation
import MetronomeTestSupport
import Testing

/// Runs the binary, killing it after `seconds` (a trap shows as 132, a kill as 137, so neither passes for 65).
func runBounded(_ arguments: [String], seconds: Double = 10) throws -> (result: CommandResult, elapsed: Double) {
    let start = Date()
    let child = try CommandRunner.start(arguments)
    while !child.hasExited, Date().timeIntervalSince(start) < seconds { usleep(10_000) }
    if !child.hasExited { child.send(SIGKILL) }
    return (child.wait(), Date().timeIntervalSince(start))
}

@Suite("Hostile inputs: every reproducer of issue 12 is one error and exit 65, never a trap or unbounded memory")
struct HostileInputTests {
    static let zeros = String(repeating: "0", count: 300)
    static let nested127 =
        String(repeating: "repeat 2\n", count: 127) + "1 bar\n" + String(repeating: "end\n", count: 127)
    static let nested8192 =
        String(repeating: "repeat 8192\n", count: 10) + "1 bar\n" + String(repeating: "end\n", count: 10)

    /// File name, its text, and what `check` must print on standard error.
    static let patterns: [(String, String, String)] = [
        (
            "t.metro", "tempo 9223372036854775808\n4 bars\n",
            "t.metro:1:7: error: tempo 9223372036854775808 is out of range; tempos must be from 1 to 1000 quarter notes per minute\ntempo 9223372036854775808\n      ^\n"
        ),
        (
            "max.klick", "9223372036854775807 4/4 120\n",
            "max.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n9223372036854775807 4/4 120\n^\n"
        ),
        (
            "list.klick", "9223372036854775807 4/4 120,120,120,120\n",
            "list.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n9223372036854775807 4/4 120,120,120,120\n^\n"
        ),
        (
            "clock.klick", "100000000000000000 4/4 120\n",
            "clock.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n100000000000000000 4/4 120\n^\n"
        ),
        (
            "step.metro", "forever trainer +0.\(zeros)1 every 1 bars to 200\n",
            "step.metro:1:1: error: the file expands to more than 200000 sections; use fewer repeats\nforever trainer +0.\(zeros)1 every 1 bars to 200\n^\n"
        ),
        (
            "every.metro", "4 bars trainer +1 every 9223372036854775807 bars to 200\n",
            "every.metro:1:25: error: a trainer steps every 1 to 1000000 bars, not 9223372036854775807\n4 bars trainer +1 every 9223372036854775807 bars to 200\n                        ^\n"
        ),
        (
            "forever.metro", "forever trainer +1 every 10001 repeats to 200\n",
            "forever.metro:1:26: error: a trainer steps every 1 to 10000 repeats, not 10001\nforever trainer +1 every 10001 repeats to 200\n                         ^\n"
        ),
        (
            "twos.metro", nested127,
            "twos.metro:128:1: error: the file expands to more than 200000 sections; use fewer repeats\n1 bar\n^\n"
        ),
        (
            "wide.metro", nested8192,
            "wide.metro:11:1: error: the file expands to more than 200000 sections; use fewer repeats\n1 bar\n^\n"
        ),
        (
            "long.klick", String(repeating: "1000000 64/1 120\n", count: 400),
            "long.klick:391:1: error: the map grows longer than 100000000000 quarter notes here\n1000000 64/1 120\n^\n"
        ),
        (
            "long.metro", "meter 64/1\nrepeat 20\n1000000 bars x10000\nend\n",
            "metronome: error: long.metro: section 391: the map grows longer than 100000000000 quarter notes here\n"
        ),
    ]

    @Test("check: overflowing numbers and nesting give the exact error and exit 65 within seconds", arguments: patterns)
    func patternReproducers(name: String, text: String, message: String) throws {
        let scratch = try Scratch()
        let path = scratch.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (result, _) = try runBounded(["check", path])
        #expect(result.status == 65)
        #expect(result.standardError == message.replacingOccurrences(of: name, with: path))
        #expect(result.standardOutput == "")
    }

    @Test("--start-at far into an endless section is refused (64), not a trap")
    func startAtInfinity() throws {
        let scratch = try Scratch()
        try "4 bars\nforever\n".write(toFile: scratch.file("e.metro"), atomically: true, encoding: .utf8)
        let (result, _) = try runBounded([
            "play", scratch.file("e.metro"), "--start-at", "9223372036854775807", "-o", scratch.file("o.wav"),
        ])
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "metronome: error: --start-at 9223372036854775807: the pattern plays forever from bar 5; start at 1 to 1000004\n"
        )
    }

    @Test("Binary files and devices given as text: one line naming the first byte that is not text, exit 65, fast")
    func notText() throws {
        let scratch = try Scratch()
        let wav = scratch.file("click.wav")
        try writeSilentWAV(wav, rate: 48000, frames: 480)
        let big = scratch.file("big.metro")
        try Data(repeating: UInt8(ascii: "#"), count: 16 * 1_048_576 + 1).write(to: URL(fileURLWithPath: big))
        let out = scratch.file("out.wav")
        let text = "pattern and bank files are UTF-8 text"
        let cases: [([String], String)] = [
            (["check", "/dev/zero"], "/dev/zero: not a text file (byte 0x00 at offset 0); \(text)"),
            (
                ["chord", "C", "--bank", "/dev/zero", "-o", out],
                "--bank /dev/zero: not a text file (byte 0x00 at offset 0); \(text)"
            ),
            (["check", wav], "\(wav): not a text file (byte 0x03 at offset 5); \(text)"),
            (["play", wav, "-o", out], "\(wav): not a text file (byte 0x03 at offset 5); \(text)"),
            (
                ["chord", "C", "--bank", wav, "-o", out],
                "--bank \(wav): not a text file (byte 0x03 at offset 5); \(text)"
            ),
            (
                ["check", CommandRunner.executable],
                "\(CommandRunner.executable): not a text file (byte 0x7F at offset 0); \(text)"
            ),
            (["check", big], "\(big): larger than 16 MiB; pattern and bank files are at most 16 MiB of text"),
        ]
        for (arguments, message) in cases {
            let (result, elapsed) = try runBounded(arguments)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.standardError == "metronome: error: \(message)\n")
            #expect(result.standardOutput == "")
            #expect(elapsed < 5)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("The same bad sample is 65 with --sound-file and through a bank; only a missing one is 66; fast")
    func samples() throws {
        let scratch = try Scratch(inMemory: true)
        try writeSilentWAV(scratch.file("slow.wav"), rate: 1, frames: 100)
        try writeSilentWAV(scratch.file("huge.wav"), rate: 48000, frames: 1_000_000_000, sparse: true)
        try Data(repeating: 0x5A, count: 3000).write(to: URL(fileURLWithPath: scratch.file("garbled.wav")))
        let out = scratch.file("out.wav")
        let cases: [(String, Int32, String)] = [
            ("slow.wav", 65, "has a sample rate of 1 Hz; samples must be from 8000 to 384000 Hz"),
            ("huge.wav", 65, "holds 1000000000 frames at 48000 Hz, more than 60 s; samples may last at most 60 s"),
            ("garbled.wav", 65, "not a readable audio file: Format not recognised."),
        ]
        for (name, status, reason) in cases {
            let sample = scratch.file(name)
            let (direct, directTime) = try runBounded(["--bars", "1", "--sound-file", sample, "-o", out])
            #expect(direct.status == status)
            #expect(direct.standardError == "metronome: error: --sound-file \(sample): \(reason)\n")
            let bank = scratch.file("b.bank")
            try "sample \(name) root C4 notes 0-127\n".write(toFile: bank, atomically: true, encoding: .utf8)
            let (banked, bankTime) = try runBounded(["chord", "C", "--bank", bank, "-o", out])
            #expect(banked.status == status)
            #expect(banked.standardError == "metronome: error: --bank \(bank): sample \(sample): \(reason)\n")
            #expect(directTime < 5 && bankTime < 5)
        }
        let missing = scratch.file("none.wav")
        #expect(try CommandRunner.run(["--bars", "1", "--sound-file", missing, "-o", out]).status == 66)
        try "sample none.wav root C4 notes 0-127\n".write(
            toFile: scratch.file("m.bank"), atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["chord", "C", "--bank", scratch.file("m.bank"), "-o", out]).status == 66)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("Windows line endings and a byte-order mark: .metro, .klick and .bank files work from the command line")
    func windowsText() throws {
        let scratch = try Scratch()
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        func write(_ name: String, _ text: String) throws -> String {
            let path = scratch.file(name)
            try Data(mark + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)).write(
                to: URL(fileURLWithPath: path))
            return path
        }
        let metro = try write("w.metro", "# Windows.\ntempo 90\nintro: 2 bars\n")
        let check = try CommandRunner.run(["check", metro])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.standardOutput.hasSuffix("total: 2 bars, 0:05.333\n"))
        let klick = try write("w.klick", "intro: 2 4/4 120\n1 3/4 90\n")
        let map = try CommandRunner.run(["check", klick])
        #expect(map.status == 0, "\(map.standardError)")
        #expect(map.standardOutput.hasSuffix("total: 3 bars, 0:06.000\n"))
        try writeSilentWAV(scratch.file("a.wav"), rate: 48000, frames: 4800)
        let bank = try write("w.bank", "name w\nsample a.wav root A4 notes 0-127\n")
        let chord = try CommandRunner.run(["chord", "C", "--bank", bank, "-o", scratch.file("c.wav")])
        #expect(chord.status == 0, "\(chord.standardError)")
    }
}

/// A 16-bit PCM WAV saying `frames` frames at `rate`: silence, or a hole of that size (`sparse`), a file as large as
/// its header says that takes no disk space.
func writeSilentWAV(_ path: String, rate: Int, frames: Int, sparse: Bool = false) throws {
    func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    let size = UInt32(frames * 2)
    var header: [UInt8] = Array("RIFF".utf8) + le(36 + size) + Array("WAVEfmt ".utf8) + le(UInt32(16))
    header += le(UInt16(1)) + le(UInt16(1)) + le(UInt32(rate)) + le(UInt32(rate * 2))
    header += le(UInt16(2)) + le(UInt16(16)) + Array("data".utf8) + le(size)
    try Data(sparse ? header : header + [UInt8](repeating: 0, count: Int(size))).write(to: URL(fileURLWithPath: path))
    if sparse { _ = truncate(path, off_t(header.count) + off_t(size)) }
}
