import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// Finding presets and zones: sorting, General MIDI fallbacks, 24-bit samples.
@Suite struct SoundFontLookupTests {
    static let font: SoundFont = {
        let builder = SoundFontBuilder()
            .sample("a", frames: [1, 2, 3, 4])
            .instrument("I", .sample("a", keys: 0...63), .sample("a", keys: 60...127, velocities: 1...64))
        let presets: [(String, Int, Int)] = [
            ("Strings", 0, 48), ("Piano", 0, 0), ("Room Kit", 128, 8), ("Standard Kit", 128, 0),
            ("Detuned Piano", 8, 0), ("Second Piano", 0, 0),
        ]
        let bytes = presets.reduce(builder) { $0.preset($1.0, bank: $1.1, program: $1.2, instrument: "I") }.build()
        return try! SoundFont(bytes: bytes)
    }()

    @Test func presetsAreSortedByBankThenProgramThenFontOrder() {
        #expect(
            Self.font.presets.map(\.description) == [
                "000:000 Piano", "000:000 Second Piano", "000:048 Strings", "008:000 Detuned Piano",
                "128:000 Standard Kit", "128:008 Room Kit",
            ])
    }

    @Test func generalMIDIFallbacks() {
        let font = Self.font
        #expect(font.preset(bank: 0, program: 0)?.name == "Piano")  // the first of a repeated bank and program
        #expect(font.preset(bank: 8, program: 0)?.name == "Detuned Piano")
        #expect(font.preset(bank: 8, program: 48)?.name == "Strings")  // a missing melodic variation: bank 0
        #expect(font.preset(bank: 3, program: 48)?.name == "Strings")
        #expect(font.preset(bank: 128, program: 8)?.name == "Room Kit")
        #expect(font.preset(bank: 128, program: 25)?.name == "Standard Kit")  // a missing kit: the standard one
        #expect(font.preset(bank: 0, program: 1) == nil)
        #expect(font.preset(bank: 3, program: 1) == nil)
        #expect(font.preset(bank: -1, program: 0)?.name == "Piano")
        #expect(font.preset(bank: 0, program: 70_000) == nil)
    }

    @Test func zonesForANoteAreThoseWhoseRangesHoldIt() throws {
        let font = Self.font
        let piano = try #require(font.preset(bank: 0, program: 0))
        #expect(font.zones(of: piano).count == 2)
        #expect(font.zones(preset: piano, key: 61, velocity: 64).map { $0.pointee.keyLow } == [0, 60])
        #expect(font.zones(preset: piano, key: 61, velocity: 65).map { $0.pointee.keyLow } == [0])
        #expect(font.zones(preset: piano, key: 100, velocity: 127).isEmpty)
        #expect(font.zones(preset: piano, key: 200, velocity: 64).isEmpty)
    }

    @Test func sm24IsUsedOnlyFrom2Point04AndWhenItsSizeMatches() throws {
        func font(_ version: SoundFontVersion) throws -> SoundFont {
            try SoundFont(
                bytes: SoundFontBuilder(version: version)
                    .sample("deep", frames: [100, -100, 300], low: [0x12, 0x34, 0x56])
                    .instrument("I", .sample("deep"))
                    .preset("P", program: 0, instrument: "I")
                    .build())
        }
        let current = try font(SoundFontVersion(major: 2, minor: 4))
        let zone = current.zones(of: current.presets[0])[0]
        let low = try #require(zone.low)
        #expect((zone.data[zone.start + 1], low[zone.start + 1]) == (-100, 0x34))
        let old = try font(SoundFontVersion(major: 2, minor: 1))
        #expect(old.zones(of: old.presets[0])[0].low == nil)
        var bytes = SoundFontBuilder()
            .sample("deep", frames: [100, -100, 300], low: [0x12, 0x34, 0x56])
            .instrument("I", .sample("deep"))
            .preset("P", program: 0, instrument: "I")
            .build()
        let sm24 = try #require(SoundFontBuilder.chunkOffset("sm24", in: bytes))
        // 40 bytes of low bytes for 49 frames (a JUNK chunk takes the rest): ignored, as §6.2 asks.
        bytes[sm24 + 4] = 40
        bytes.replaceSubrange((sm24 + 48)..<(sm24 + 56), with: Array("JUNK".utf8) + [2, 0, 0, 0])
        let mismatched = try SoundFont(bytes: bytes)
        #expect(mismatched.zones(of: mismatched.presets[0])[0].low == nil)
    }
}
