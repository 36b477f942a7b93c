import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// Every check of the SoundFont reader, each on a font broken in one place: the exact message and byte offset.
@Suite struct SoundFontMalformedTests {
    /// A preset "Grand" playing instrument "Piano" (a global zone with one generator, then a zone playing "Kick",
    /// 100 frames followed by 46 of silence).
    static let base = SoundFontBuilder(name: "Base")
        .sample("Kick", frames: [Int16](repeating: 7, count: 100), loop: 10..<90)
        .instrument("Piano", .global([.pan: 10]), .sample("Kick"))
        .preset("Grand", program: 0, .instrument("Piano"))
        .build()

    /// The offset of record `index` (of `size` bytes) in chunk `id`.
    static func record(_ id: String, _ index: Int = 0, size: Int = 0, in bytes: [UInt8] = base) -> Int {
        SoundFontBuilder.chunkOffset(id, in: bytes)! + 8 + index * size
    }

    static func patched(_ bytes: [UInt8] = base, at offset: Int, _ value: Int, width: Int) -> [UInt8] {
        var copy = bytes
        for index in 0..<width { copy[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        return copy
    }

    static func patched(_ bytes: [UInt8] = base, at offset: Int, text: String) -> [UInt8] {
        var copy = bytes
        copy.replaceSubrange(offset..<(offset + text.utf8.count), with: Array(text.utf8))
        return copy
    }

    /// Removes `count` bytes at `offset` from inside the chunk whose header is at `chunk`, fixing its size and
    /// its parents' (the pdta list's and the RIFF's).
    static func removing(_ count: Int, at offset: Int, chunk: Int) -> [UInt8] {
        var copy = base
        copy.removeSubrange(offset..<(offset + count))
        for header in [0, SoundFontBuilder.chunkOffset("pdta", in: base)!, chunk] {
            let size = (0..<4).reduce(0) { $0 | Int(copy[header + 4 + $1]) << (8 * $1) }
            copy = patched(copy, at: header + 4, size - count, width: 4)
        }
        return copy
    }

    func expect(
        _ bytes: [UInt8], _ offset: Int, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: SoundFontError(offset: offset, message), sourceLocation: sourceLocation) {
            try SoundFont(bytes: bytes)
        }
    }

    @Test func theBaseFontIsValid() throws {
        let font = try SoundFont(bytes: Self.base)
        #expect(font.zoneCount == 1 && font.presets.map(\.name) == ["Grand"])
    }

    @Test func theRIFFStructure() {
        expect([], 0, "expected a RIFF file of at least 12 bytes, found 0 bytes")
        expect(Self.patched(at: 0, text: "RIFX"), 0, "expected \"RIFF\", found \"RIFX\"")
        expect(Self.patched(at: 8, text: "WAVE"), 8, "expected \"sfbk\", found \"WAVE\"")
        expect(Self.patched(at: 8, 0x0A00_0D01, width: 4), 8, #"expected "sfbk", found "\x01\x0D\x00\x0A""#)
        let truncated = Array(Self.base.dropLast(10))
        expect(
            truncated, 4,
            "the RIFF chunk is \(Self.base.count - 8) bytes but the file holds \(truncated.count - 8) after its header")
        let pdta = SoundFontBuilder.chunkOffset("pdta", in: Self.base)!
        expect(Self.patched(at: pdta + 8, text: "pdtX"), 8, "the sfbk form has no \"pdta\" list")
        let info = SoundFontBuilder.chunkOffset("INFO", in: Self.base)!
        let sdta = SoundFontBuilder.chunkOffset("sdta", in: Self.base)!
        expect(Self.patched(at: sdta + 8, text: "INFO"), sdta, "a second \"INFO\" list")
        expect(
            Self.patched(at: info + 12, text: "ifiX"), info, "the INFO list has no \"ifil\" chunk (the format version)")
        expect(
            Self.patched(at: info + 20, 1, width: 2), info + 20, "expected SoundFont version 2.x or 3.x, found 1.04")
        let pgen = SoundFontBuilder.chunkOffset("pgen", in: Self.base)!
        let pdtaSize = (0..<4).reduce(0) { $0 | Int(Self.base[pdta + 4 + $1]) << (8 * $1) }
        let left = pdta + 8 + pdtaSize - (pgen + 8)
        expect(
            Self.patched(at: pgen + 4, 99_999, width: 4), pgen,
            "the \"pgen\" chunk is 99999 bytes but the pdta chunk has \(left) left")
    }

    @Test func theHydraChunks() {
        let phdr = SoundFontBuilder.chunkOffset("phdr", in: Self.base)!
        expect(Self.patched(at: phdr + 4, 75, width: 4), phdr, "the phdr chunk is 75 bytes, not a multiple of 38")
        let shdr = SoundFontBuilder.chunkOffset("shdr", in: Self.base)!
        let pdta = SoundFontBuilder.chunkOffset("pdta", in: Self.base)!
        expect(Self.patched(at: shdr, text: "shdX"), pdta, "the pdta list has no \"shdr\" chunk")
        let pmod = SoundFontBuilder.chunkOffset("pmod", in: Self.base)!
        expect(
            Self.removing(10, at: pmod + 8, chunk: pmod), pmod,
            "the pmod chunk is empty; it must end with a terminal record")
    }

    @Test func indicesOutOfRangeOrRunningBackwards() {
        let eop = Self.record("phdr", 1, size: 38)
        expect(
            Self.patched(at: eop + 24, 50, width: 2), eop,
            "preset header 1 (\"EOP\") points to bag 50 but the pbag chunk has 2")
        let both = Self.patched(Self.patched(at: Self.record("phdr") + 24, 1, width: 2), at: eop + 24, 0, width: 2)
        expect(both, eop, "preset header 1 (\"EOP\") points to bag 0, before the previous header's 1")
        expect(
            Self.patched(at: eop + 24, 0, width: 2), eop,
            "the terminal preset header (\"EOP\") points to bag 0, not to the pbag chunk's terminal record 1")
        let terminalBag = Self.record("pbag", 1, size: 4)
        expect(
            Self.patched(at: terminalBag, 0, width: 2), terminalBag,
            "the terminal preset bag points to generator 0 and modulator 0, not to the terminal records 1 of the "
                + "pgen chunk and 0 of the pmod chunk")
        let pbag = Self.record("pbag")
        expect(
            Self.patched(at: pbag, 40, width: 2), pbag, "preset bag 0 points to generator 40 but the pgen chunk has 2")
        let ibag = Self.record("ibag", 1, size: 4)
        expect(
            Self.patched(at: ibag + 2, 1, width: 2), ibag,
            "instrument bag 1 points to modulator 1 but the imod chunk has 1")
        let last = Self.record("ibag", 2, size: 4)
        expect(
            Self.patched(at: last, 0, width: 2), last,
            "instrument bag 2 points to generator 0, before the previous bag's 1")
        let instrument = Self.record("pgen")
        expect(
            Self.patched(at: instrument + 2, 7, width: 2), instrument,
            "preset zone 0 of \"Grand\" points to instrument 7 but the font has 1")
        let sample = Self.record("igen", 1, size: 4)
        expect(
            Self.patched(at: sample + 2, 812, width: 2), sample,
            "instrument zone 1 of \"Piano\" points to sample 812 but the font has 1")
    }

    @Test func samplesOutsideTheSampleData() {
        let kick = Self.record("shdr")
        expect(
            Self.patched(at: kick + 24, 90000, width: 4), kick,
            "sample \"Kick\" ends at frame 90000 but the sample data holds 146 frames")
        expect(
            Self.patched(at: kick + 20, 120, width: 4), kick, "sample \"Kick\" starts at frame 120, after its end 100")
        expect(
            Self.patched(at: kick + 32, 500, width: 4), kick,
            "sample \"Kick\" loop ends at frame 500 but the sample data holds 146 frames")
        expect(
            Self.patched(at: kick + 28, 147, width: 4), kick,
            "sample \"Kick\" loop starts at frame 147 but the sample data holds 146 frames")
        // A ROM sample's data is not in the file: it is not checked, and its zones make no voice.
        let rom = Self.patched(Self.patched(at: kick + 44, 0x8001, width: 2), at: kick + 24, 90000, width: 4)
        #expect((try? SoundFont(bytes: rom))?.zoneCount == 0)
    }

    @Test func tooManyZonesFailBeforeAnythingIsMerged() {
        let zones = (0..<600).map { SoundFontBuilderZone.sample("a", keys: $0 % 128...$0 % 128) }
        var builder = SoundFontBuilder().sample("a", frames: [1, 2, 3])
        builder = builder.instrument("Many", zones: zones)
        builder = builder.preset("Big", program: 0, zones: Array(repeating: .instrument("Many"), count: 500))
        let bytes = builder.build()
        expect(
            bytes, Self.record("phdr", in: bytes),
            "the presets up to \"Big\" make more than 262144 voice zones or 4194304 modulators")
    }
}
