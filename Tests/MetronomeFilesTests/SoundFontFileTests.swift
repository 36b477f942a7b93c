import Foundation
import MetronomeFiles
import MetronomeModel
import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// Loading SoundFont files: errors by kind, Debian's General MIDI fonts (mapped, not read), and SF3 through
/// libsndfile.
@Suite struct SoundFontFileTests {
    static let timidity = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    static let fluid = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    /// Resident pages of this process, in bytes (/proc/self/statm's second field).
    static func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return try #require(Int(fields[1])) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Whether a sanitizer's runtime is linked in (its entry point is found): there the resident set also holds its
    /// shadow of every byte touched and, under AddressSanitizer, its quarantine of freed blocks.
    static let underSanitizer = dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil

    @Test func aMissingFileIsMissing() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: SoundFontFileError.notFound(path: scratch.file("none.sf2"))) {
            try SoundFontFile.load(path: scratch.file("none.sf2"))
        }
        #expect(throws: SoundFontFileError.notRegularFile(path: scratch.path)) {
            try SoundFontFile.load(path: scratch.path)
        }
        #expect(SoundFontFileError.notFound(path: "a.sf2").isMissing)
        #expect(SoundFontFileError.notRegularFile(path: "a").isMissing)
        #expect(SoundFontFileError.notFound(path: "a.sf2").description == "a.sf2: no such file")
    }

    @Test func aMalformedFileNamesTheByteAndWhatWasExpected() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("wave.sf2")
        var bytes = SoundFontBuilder().build()
        bytes.replaceSubrange(8..<12, with: Array("WAVE".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SoundFontFile.load(path: path)
            Issue.record("loaded a WAVE file as a SoundFont")
        } catch {
            #expect(error.description == "\(path): error: at byte 8: expected \"sfbk\", found \"WAVE\"")
            #expect(!error.isMissing)
        }
        let empty = scratch.file("empty.sf2")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(
            throws: SoundFontFileError.malformed(
                path: empty, SoundFontError(offset: 0, "expected a RIFF file of at least 12 bytes, found 0 bytes"))
        ) { try SoundFontFile.load(path: empty) }
    }

    @Test func aBuiltFontLoadsFromAFile() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("built.sf2")
        let bytes = SoundFontBuilder(name: "Built")
            .sample("ramp", frames: (0..<100).map { Int16($0) })
            .instrument("Ramp", .sample("ramp"))
            .preset("Ramp", bank: 0, program: 3, instrument: "Ramp")
            .build()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let font = try SoundFontFile.load(path: path)
        #expect(font.name == "Built")
        let preset = try #require(font.preset(bank: 0, program: 3))
        let zone = try #require(font.zones(preset: preset, key: 1, velocity: 1).first)
        #expect(zone.pointee.data[zone.pointee.start + 42] == 42)
    }

    /// The resident bytes of this process's mappings of `path` (/proc/self/smaps), in bytes.
    static func residentBytes(mapping path: String) throws -> Int {
        var inside = false
        var total = 0
        // String(contentsOfFile:) stops short on /proc files, whose size reads as 0.
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-") {
                inside = line.hasSuffix(path)
            } else if inside, line.hasPrefix("Rss:") {
                total += (Int(line.split(separator: " ")[1]) ?? 0) * 1024
            }
        }
        return total
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: timidity)))
    func timGM6mbLoadsWithItsGeneralMIDIPresets() throws {
        let font = try SoundFontFile.load(path: Self.timidity)
        #expect(font.version.major == 2)
        #expect(font.presets.count == 136)
        #expect(font.zoneCount == 2063)
        #expect(font.preset(bank: 0, program: 0)?.name == "Piano 1")
        #expect(font.preset(bank: 0, program: 19)?.name == "Church Organ")
        #expect(font.preset(bank: 128, program: 0)?.name == "Standard")
        // General MIDI fallbacks: an unknown kit plays the standard one, an unknown bank the melodic set.
        #expect(font.preset(bank: 128, program: 100)?.description == "128:000 Standard")
        #expect(font.preset(bank: 5, program: 19)?.description == "000:019 Church Organ")
        let piano = try #require(font.preset(bank: 0, program: 0))
        let zones = font.zones(preset: piano, key: 60, velocity: 100)
        #expect(!zones.isEmpty)
        for zone in zones.map(\.pointee) {
            #expect(zone.start < zone.end && zone.end <= zone.dataFrameCount && zone.sampleRate > 0)
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: fluid)))
    func fluidR3IsMappedNotRead() throws {
        let before = try Self.residentBytes()
        let clock = ContinuousClock()
        let start = clock.now
        let font = try SoundFontFile.load(path: Self.fluid)
        let elapsed = clock.now - start
        let grown = try Self.residentBytes() - before
        let mapped = try Self.residentBytes(mapping: Self.fluid)
        #expect(font.presets.count == 189)
        #expect(font.zoneCount == 16912)
        #expect(font.preset(bank: 0, program: 0)?.name == "Yamaha Grand Piano")
        #expect(font.preset(bank: 128, program: 0)?.name == "Standard")
        // Only the hydra's pages are read (about 270 KiB of 148 MB); the process grows by the zone table
        // (16,912 × 328 bytes, 5.5 MB) and little else. Tests running beside this one may add a few MB. Under a
        // sanitizer the set also grows by the sanitizer's own memory (17.8 MB under TSan, 18.0 MB under ASan, measured
        // by .ci/sanitize), so the growth is checked in the normal suite; the font's own pages are checked everywhere.
        #expect(mapped < 2 << 20, "\(mapped) bytes of the font's mapping are resident")
        let table = font.zoneCount * MemoryLayout<SoundFontVoiceZone>.stride
        if !Self.underSanitizer {
            #expect(grown < table + 8 << 20, "loading grew the resident set by \(grown) bytes")
        }
        #expect(elapsed < .seconds(2))
    }

    /// An SF3 font: a sine compressed with libsndfile's Ogg Vorbis encoder beside a 16-bit ramp.
    static func sf3(_ scratch: ScratchDirectory) throws -> (bytes: [UInt8], sine: [Float]) {
        let sine = (0..<4800).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        let oggPath = scratch.file("sine.ogg")
        let writer = try AudioFileWriter(
            path: oggPath, container: .ogg, sampleType: .vorbis, channels: 1, sampleRate: try SampleRate(48000))
        try sine.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: sine.count) }
        try writer.finish()
        let ogg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: oggPath)))
        let bytes = SoundFontBuilder(name: "Compressed")
            .sample("ramp", frames: (0..<100).map { Int16($0) })
            .compressedSample("sine", ogg: ogg, rate: 48000, key: 69, loop: 100..<1100)
            .instrument("Both", .sample("ramp", keys: 0...59), .sample("sine", keys: 60...127))
            .preset("Both", program: 0, instrument: "Both")
            .build()
        return (bytes, sine)
    }

    @Test func anSF3DecodesThroughLibsndfile() throws {
        let scratch = try ScratchDirectory()
        let (bytes, sine) = try Self.sf3(scratch)
        let path = scratch.file("font.sf3")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let font = try SoundFontFile.load(path: path)
        #expect(font.version == SoundFontVersion(major: 3, minor: 1))
        let preset = try #require(font.preset(bank: 0, program: 0))
        let ramp = try #require(font.zones(preset: preset, key: 40, velocity: 100).first).pointee
        #expect(ramp.data[ramp.start + 99] == 99 && ramp.end - ramp.start == 100)
        let zone = try #require(font.zones(preset: preset, key: 69, velocity: 100).first).pointee
        #expect(zone.end - zone.start == sine.count)
        #expect(zone.loopStart == zone.start + 100 && zone.loopEnd == zone.start + 1100)
        #expect(zone.end + 46 <= zone.dataFrameCount && zone.sampleType == 1 && zone.low == nil)
        let error =
            (0..<sine.count).map { (index: Int) -> Float in
                abs(Float(zone.data[zone.start + index]) / 32768 - sine[index])
            }.max() ?? 1
        #expect(error < 0.05, "the decoded sine is \(error) off")
        withExtendedLifetime(font) {}
    }

    @Test func anSF3NeedsADecoderAndDecodableData() throws {
        let scratch = try ScratchDirectory()
        var bytes = try Self.sf3(scratch).bytes
        let sineHeader = try #require(SoundFontBuilder.chunkOffset("shdr", in: bytes)) + 8 + 46
        #expect(
            throws: SoundFontError(
                offset: sineHeader, "sample \"sine\" is compressed (SF3, Ogg Vorbis) and no decoder was given")
        ) { try SoundFont(bytes: bytes) }
        let smpl = try #require(SoundFontBuilder.chunkOffset("smpl", in: bytes))
        // The stream's first page (after the ramp's 100 frames and 46 of silence): its capture pattern and header.
        let stream = smpl + 8 + 146 * 2
        bytes.replaceSubrange(stream..<(stream + 64), with: [UInt8](repeating: 0x55, count: 64))
        let path = scratch.file("broken.sf3")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(
            throws: SoundFontFileError.malformed(
                path: path, SoundFontError(offset: sineHeader, "sample \"sine\": its Ogg Vorbis data does not decode"))
        ) { try SoundFontFile.load(path: path) }
    }
}
