import Foundation
import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// A 16-bit PCM WAV header saying `frames` frames at `rate`, followed by `frames` frames of silence, or by nothing
/// but a hole of that size (`sparse`): a file as large as the header says that takes no disk space.
func writeWAV(_ path: String, rate: Int, frames: Int, channels: Int = 1, sparse: Bool = false) throws {
    func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    let size = UInt32(frames * channels * 2)
    var header: [UInt8] = Array("RIFF".utf8) + le(36 + size) + Array("WAVEfmt ".utf8) + le(UInt32(16))
    header += le(UInt16(1)) + le(UInt16(channels)) + le(UInt32(rate)) + le(UInt32(rate * channels * 2))
    header += le(UInt16(channels * 2)) + le(UInt16(16)) + Array("data".utf8) + le(size)
    let data = sparse ? Data(header) : Data(header + [UInt8](repeating: 0, count: Int(size)))
    try data.write(to: URL(fileURLWithPath: path))
    if sparse { #expect(truncate(path, off_t(header.count) + off_t(size)) == 0) }
}

@Suite("Input limits: text files and samples fail fast with a documented limit")
struct InputLimitTests {
    @Test("Text files: /dev/zero and binary bytes are not text, read no further than the first block")
    func notText() throws {
        let start = Date()
        #expect(throws: TextFileError.notText(path: "/dev/zero", offset: 0, byte: 0)) {
            try TextFile.read(path: "/dev/zero")
        }
        #expect(Date().timeIntervalSince(start) < 1)
        let scratch = try Scratch()
        let cases: [([UInt8], Int, UInt8)] = [
            (Array("4 bars\n\u{1B}[2J".utf8), 7, 0x1B),  // a terminal escape
            (Array("tempo 90\n".utf8) + [0xFF, 0x41], 9, 0xFF),  // not UTF-8
            (Array("é".utf8) + [0xC3], 2, 0xC3),  // a sequence cut at the end
            (Array("abc\u{7F}".utf8), 3, 0x7F),
        ]
        for (bytes, offset, byte) in cases {
            let path = scratch.file("b.metro")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(throws: TextFileError.notText(path: path, offset: offset, byte: byte)) {
                try TextFile.read(path: path)
            }
        }
        #expect(
            TextFileError.notText(path: "x.wav", offset: 4, byte: 0).description
                == "x.wav: not a text file (byte 0x00 at offset 4); pattern and bank files are UTF-8 text")
    }

    @Test("Text files: 16 MiB is read, one byte more is refused; a byte-order mark is dropped; CRLF, tab, FF kept")
    func sizeAndMark() throws {
        let scratch = try Scratch(inMemory: true)
        let path = scratch.file("big.metro")
        let block = [UInt8](repeating: UInt8(ascii: "#"), count: TextFile.maximumBytes - 1) + [0x0A]
        try Data(block).write(to: URL(fileURLWithPath: path))
        #expect(try TextFile.read(path: path).utf8.count == TextFile.maximumBytes)
        try Data(block + [0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: TextFileError.tooLarge(path: path)) { try TextFile.read(path: path) }
        #expect(
            TextFileError.tooLarge(path: "p").description
                == "p: larger than 16 MiB; pattern and bank files are at most 16 MiB of text")
        try Data([0xEF, 0xBB, 0xBF] + Array("tempo 90\r\n\t4 bars\u{0C}\r\n".utf8)).write(
            to: URL(fileURLWithPath: path))
        #expect(try TextFile.read(path: path) == "tempo 90\r\n\t4 bars\u{0C}\r\n")
        #expect(throws: TextFileError.notFound(path: scratch.file("none"))) {
            try TextFile.read(path: scratch.file("none"))
        }
        #expect(throws: TextFileError.self) { try TextFile.read(path: scratch.path) }
        #expect(TextFileError.notFound(path: "a").isMissing && !TextFileError.tooLarge(path: "a").isMissing)
    }

    @Test("Samples: rates 8000 to 384000 Hz, at most 60 s, checked from the header before decoding")
    func sampleLimits() throws {
        let scratch = try Scratch(inMemory: true)
        let path = scratch.file("s.wav")
        try writeWAV(path, rate: 1, frames: 100)
        #expect(throws: AudioFileError.unsupportedSampleRate(path: path, rate: 1)) {
            try AudioFileReader.loadSample(path: path, sampleRate: .standard)
        }
        try writeWAV(path, rate: 7999, frames: 100)
        #expect(throws: AudioFileError.unsupportedSampleRate(path: path, rate: 7999)) {
            try AudioFileReader.readSample(path: path)
        }
        try writeWAV(path, rate: 8000, frames: 480_000)
        #expect(try AudioFileReader.readSample(path: path).frameCount == 480_000)
        #expect(
            try AudioFileReader.loadSample(path: path, sampleRate: try SampleRate(192_000)).frameCount == 11_520_000)
        try writeWAV(path, rate: 8000, frames: 480_001)
        #expect(throws: AudioFileError.tooLong(path: path, frames: 480_001, rate: 8000)) {
            try AudioFileReader.readSample(path: path)
        }
        // 2 GB as the header says (a sparse file): refused at once, nothing decoded.
        try writeWAV(path, rate: 48000, frames: 1_000_000_000, sparse: true)
        let start = Date()
        #expect(throws: AudioFileError.tooLong(path: path, frames: 1_000_000_000, rate: 48000)) {
            try AudioFileReader.readSample(path: path)
        }
        #expect(Date().timeIntervalSince(start) < 1)
        // A render or a recording is read whole, however long or whatever its rate: the limits are a sample's.
        try writeWAV(path, rate: 8000, frames: 480_001)
        #expect(try AudioFileReader.read(path: path).frameCount == 480_001)
        try writeWAV(path, rate: 1, frames: 100)
        #expect(try AudioFileReader.read(path: path).frameCount == 100)
        #expect(
            AudioFileError.tooLong(path: "a.wav", frames: 480_001, rate: 8000).description
                == "a.wav: holds 480001 frames at 8000 Hz, more than 60 s; samples may last at most 60 s")
        #expect(
            AudioFileError.unsupportedSampleRate(path: "a.wav", rate: 1).description
                == "a.wav: has a sample rate of 1 Hz; samples must be from 8000 to 384000 Hz")
    }

    @Test("Banks: a missing sample is missing (66); an undecodable or out-of-limit one, or a binary bank, malformed")
    func bankFailures() throws {
        let scratch = try Scratch()
        try writeWAV(scratch.file("slow.wav"), rate: 1, frames: 100)
        try Data(repeating: 0x5A, count: 3000).write(to: URL(fileURLWithPath: scratch.file("garbled.wav")))
        func failure(_ text: String) throws -> SoundBankLoader.Failure? {
            try text.write(toFile: scratch.file("b.bank"), atomically: true, encoding: .utf8)
            do {
                _ = try SoundBankLoader.load(path: scratch.file("b.bank"))
                return nil
            } catch { return error }
        }
        let bank = scratch.file("b.bank")
        guard case .missing(let missing) = try failure("sample none.wav root C4 notes 0-127\n") else {
            Issue.record("a missing sample is not .missing")
            return
        }
        #expect(missing == "\(bank): sample 'none.wav' not found beside the bank")
        guard case .malformed(let slow) = try failure("sample slow.wav root C4 notes 0-127\n") else {
            Issue.record("a 1 Hz sample is not .malformed")
            return
        }
        #expect(
            slow
                == "\(bank): sample \(scratch.file("slow.wav")): has a sample rate of 1 Hz; samples must be from 8000 to 384000 Hz"
        )
        guard case .malformed(let garbled) = try failure("sample garbled.wav root C4 notes 0-127\n") else {
            Issue.record("a garbled sample is not .malformed")
            return
        }
        #expect(
            garbled
                == "\(bank): sample \(scratch.file("garbled.wav")): not a readable audio file: Format not recognised.")
        do {
            _ = try SoundBankLoader.load(path: scratch.file("slow.wav"))
            Issue.record("a WAV loaded as a bank")
        } catch {
            guard case .malformed(let message) = error else {
                Issue.record("a WAV as a bank is not .malformed")
                return
            }
            #expect(
                message
                    == "\(scratch.file("slow.wav")): not a text file (byte 0x00 at offset 5); pattern and bank files are UTF-8 text"
            )
        }
    }

    @Test("Banks with Windows line endings and a byte-order mark load, .bank and .plist alike")
    func lineEndings() throws {
        let scratch = try Scratch()
        try writeWAV(scratch.file("a.wav"), rate: 48000, frames: 4800)
        let mark = [UInt8]([0xEF, 0xBB, 0xBF])
        let bank = "# crlf\r\nname crlf\r\nsample a.wav root A4 notes 0-127 gain 0.5\r\n"
        try Data(mark + Array(bank.utf8)).write(to: URL(fileURLWithPath: scratch.file("w.bank")))
        let loaded = try SoundBankLoader.load(path: scratch.file("w.bank"))
        #expect(loaded.name == "crlf")
        #expect(loaded.zones.count == 1 && loaded.zones[0].gain == 0.5)
        let plist =
            "<?xml version=\"1.0\"?>\r\n<plist>\r\n<array>\r\n<string>\r\n48000\r\n</string>\r\n<string>a</string>\r\n"
            + "<string>127</string>\r\n<string>69</string>\r\n</array>\r\n</plist>\r\n"
        try Data(mark + Array(plist.utf8)).write(to: URL(fileURLWithPath: scratch.file("w.plist")))
        #expect(try SoundBankLoader.load(path: scratch.file("w.plist")).zones.count == 1)
    }

    @Test("Plist errors are one line: raw XML with its line breaks is cut to a short excerpt")
    func plistErrors() throws {
        let cases: [(String, InvalidValue)] = [
            (
                "<array><string>\n<b>not\na rate</b>\n</string></array>",
                InvalidValue(
                    value: "<b>not a rate</b>", reason: "the first entry must be the sample rate in Hz, 1000 to 384000")
            ),
            (
                "<array><string>48000</string><string>\n" + String(repeating: "long name ", count: 10)
                    + "\n</string><string>x</string><string>60</string></array>",
                InvalidValue(
                    value: "long name long name long name long name …",
                    reason: "its last note and root note must be MIDI numbers 0-127")
            ),
            (
                "<array><string>48000</string><string>a\nb</string><string>127</string><string>60</string></array>",
                InvalidValue(value: "a b", reason: "a sample name is one line")
            ),
            (
                "<array><string>48000</array>",
                InvalidValue(value: "<string>", reason: "the element is not closed")
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try SoundBankPlayerPlist.parse(text) }
        }
    }
}
