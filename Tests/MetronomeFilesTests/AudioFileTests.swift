import Foundation
import MetronomeEngine
import MetronomeFiles
import MetronomeModel
import Testing

/// A temporary directory removed when the test ends.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "metronome-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }
}

/// Interleaved test signal: a 440 Hz sine on the left, a 660 Hz one at −6 dB on the right, 0.25 s.
private func testSignal(channels: Int, rate: Int = 48000) -> [Float] {
    let frames = rate / 4
    var samples: [Float] = []
    for frame in 0..<frames {
        let time = Double(frame) / Double(rate)
        samples.append(Float(0.8 * sin(2 * Double.pi * 440 * time)))
        if channels == 2 { samples.append(Float(0.4 * sin(2 * Double.pi * 660 * time))) }
    }
    return samples
}

private func write(
    _ samples: [Float], to path: String, container: AudioContainer, type: AudioSampleType, channels: Int,
    rate: Int = 48000
) throws {
    let writer = try AudioFileWriter(
        path: path, container: container, sampleType: type, channels: channels, sampleRate: SampleRate(rate))
    try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: samples.count / channels) }
    try writer.finish()
}

@Suite("Audio files through libsndfile")
struct AudioFileTests {
    /// Each supported container and sample type, with the largest error a round trip may show. For integer types
    /// libsndfile writes x·(2ⁿ⁻¹ − 1) and reads back /2ⁿ⁻¹, so besides half a step of rounding a full-scale value may
    /// lose one more step: 1.5 LSB in all.
    static let cases: [(String, AudioContainer, AudioSampleType, Float)] = [
        ("wav", .wav, .float, 0),
        ("wav", .wav, .pcm16, 1.5 / 32768),
        ("wav", .wav, .pcm24, 1.5 / 8_388_608),
        ("flac", .flac, .pcm16, 1.5 / 32768),
        ("flac", .flac, .pcm24, 1.5 / 8_388_608),
        ("aiff", .aiff, .float, 0),
        ("aiff", .aiff, .pcm16, 1.5 / 32768),
        ("ogg", .ogg, .vorbis, 0.05),
    ]

    @Test("Round trip of every container and sample type, mono and stereo", arguments: cases, [1, 2])
    func roundTrip(format: (String, AudioContainer, AudioSampleType, Float), channels: Int) throws {
        let (ext, container, type, tolerance) = format
        let scratch = try ScratchDirectory()
        let path = scratch.file("round.\(ext)")
        let signal = testSignal(channels: channels)
        try write(signal, to: path, container: container, type: type, channels: channels)
        #expect(scratch.contents == ["round.\(ext)"])
        let audio = try AudioFileReader.read(path: path)
        #expect(audio.sampleRate == 48000)
        #expect(audio.channels.count == channels)
        #expect(audio.frameCount == signal.count / channels)
        var worst: Float = 0
        for frame in 0..<audio.frameCount {
            for channel in 0..<channels {
                worst = max(worst, abs(audio.channels[channel][frame] - signal[frame * channels + channel]))
            }
        }
        #expect(worst <= tolerance)
    }

    @Test("Containers come from the extension, case-insensitively")
    func containerFromExtension() {
        #expect(AudioContainer(path: "a/b/click.WAV") == .wav)
        #expect(AudioContainer(path: "x.flac") == .flac)
        #expect(AudioContainer(path: "x.aif") == .aiff)
        #expect(AudioContainer(path: "x.mp3") == nil)
        #expect(AudioContainer(path: "dir.wav/file") == nil)
        #expect(AudioContainer(path: "noextension") == nil)
    }

    @Test("An abandoned writer leaves no file at all")
    func abandonLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let writer = try AudioFileWriter(
            path: scratch.file("out.wav"), container: .wav, sampleType: .float, channels: 2, sampleRate: .standard)
        let samples = [Float](repeating: 0.1, count: 2000)
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 1000) }
        #expect(scratch.contents.count == 1)
        #expect(scratch.contents[0].hasPrefix(".out.wav.partial-"))
        writer.abandon()
        #expect(scratch.contents.isEmpty)
    }

    @Test("The destination is untouched until finish()")
    func destinationAppearsOnlyOnFinish() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("out.wav")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let writer = try AudioFileWriter(
            path: path, container: .wav, sampleType: .pcm16, channels: 1, sampleRate: .standard)
        let samples = [Float](repeating: 0.5, count: 100)
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 100) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        try writer.finish()
        #expect(try AudioFileReader.read(path: path).frameCount == 100)
        #expect(scratch.contents == ["out.wav"])
    }

    @Test("Output errors: missing folder, a directory, a path through a file")
    func cannotCreate() throws {
        let scratch = try ScratchDirectory()
        #expect(
            throws: AudioFileError.cannotCreate(
                path: scratch.file("missing/out.wav"), reason: "No such file or directory")
        ) {
            try AudioFileWriter(
                path: scratch.file("missing/out.wav"), container: .wav, sampleType: .float, channels: 2,
                sampleRate: .standard)
        }
        #expect(throws: AudioFileError.cannotCreate(path: scratch.path, reason: "it is a directory")) {
            try AudioFileWriter(
                path: scratch.path, container: .wav, sampleType: .float, channels: 2, sampleRate: .standard)
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.file("plain")))
        #expect(throws: AudioFileError.cannotCreate(path: scratch.file("plain/out.wav"), reason: "Not a directory")) {
            try AudioFileWriter(
                path: scratch.file("plain/out.wav"), container: .wav, sampleType: .float, channels: 2,
                sampleRate: .standard)
        }
        #expect(
            throws: AudioFileError.cannotCreate(path: scratch.file("x.flac"), reason: "flac cannot hold float samples")
        ) {
            try AudioFileWriter(
                path: scratch.file("x.flac"), container: .flac, sampleType: .float, channels: 2, sampleRate: .standard)
        }
        #expect(scratch.contents == ["plain"])
    }

    @Test("Input errors: missing, empty, garbled, a directory, header without frames, too many channels")
    func readErrors() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: AudioFileError.notFound(path: scratch.file("none.wav"))) {
            try AudioFileReader.read(path: scratch.file("none.wav"))
        }
        try Data().write(to: URL(fileURLWithPath: scratch.file("empty.wav")))
        #expect(throws: AudioFileError.empty(path: scratch.file("empty.wav"))) {
            try AudioFileReader.read(path: scratch.file("empty.wav"))
        }
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(
            to: URL(fileURLWithPath: scratch.file("garbled.wav")))
        #expect(throws: AudioFileError.malformed(path: scratch.file("garbled.wav"), reason: "Format not recognised.")) {
            try AudioFileReader.read(path: scratch.file("garbled.wav"))
        }
        #expect(throws: AudioFileError.unreadable(path: scratch.path, reason: "it is a directory")) {
            try AudioFileReader.read(path: scratch.path)
        }
        try write([], to: scratch.file("zero.wav"), container: .wav, type: .pcm16, channels: 1)
        #expect(throws: AudioFileError.empty(path: scratch.file("zero.wav"))) {
            try AudioFileReader.read(path: scratch.file("zero.wav"))
        }
        let writer = try AudioFileWriter(
            path: scratch.file("quad.wav"), container: .wav, sampleType: .pcm16, channels: 4, sampleRate: .standard)
        let quad = [Float](repeating: 0.1, count: 40)
        try quad.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 10) }
        try writer.finish()
        #expect(throws: AudioFileError.unsupportedChannels(path: scratch.file("quad.wav"), channels: 4)) {
            try AudioFileReader.read(path: scratch.file("quad.wav"))
        }
    }

    @Test("Samples are resampled once at load to the output rate")
    func loadResamples() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("44k.flac")
        try write(
            testSignal(channels: 2, rate: 44100), to: path, container: .flac, type: .pcm24, channels: 2, rate: 44100)
        let buffer = try AudioFileReader.loadSample(path: path, sampleRate: .standard)
        #expect(buffer.channelCount == 2)
        #expect(buffer.frameCount == (11025 * 48000 + 44099) / 44100)
        #expect(buffer.name == "44k.flac")
    }
}
