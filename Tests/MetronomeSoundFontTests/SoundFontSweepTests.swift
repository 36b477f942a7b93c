import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// 20,000 seeded mutations and truncations of a valid font: the reader throws `SoundFontError` or returns a font
/// whose zones all lie inside their sample data — never a trap, never a hang.
@Suite struct SoundFontSweepTests {
    /// Two presets (one with a global zone and modulators, one drum kit), three samples (one stereo pair), 24-bit
    /// low bytes, and a compressed (SF3) sample the test decoder fakes.
    static let base: [UInt8] = {
        let modulator = SoundFontModulator(source: 0x0081, destination: 8, amount: 300, amountSource: 0, transform: 0)
        return SoundFontBuilder(name: "Sweep", version: SoundFontVersion(major: 3, minor: 1))
            .sample(
                "left", frames: (0..<64).map { Int16($0 * 99) }, low: [UInt8](repeating: 9, count: 64),
                loop: 8..<40, type: 4, link: "right"
            )
            .sample("right", frames: (0..<64).map { Int16(-$0 * 99) }, loop: 8..<40, type: 2, link: "left")
            .compressedSample("packed", ogg: Array("OggS packed stream".utf8), loop: 2..<10)
            .instrument(
                "Pair", .global([.releaseVolumeEnvelope: -100], modulators: [modulator]),
                .sample("left", [.pan: -500], keys: 0...80), .sample("right", [.pan: 500], velocities: 20...127)
            )
            .instrument("Packed", .sample("packed", [.sampleModes: 1]))
            .preset("Pair", program: 1, .global([.coarseTune: 1]), .instrument("Pair", keys: 10...100))
            .preset("Kit", bank: 128, program: 0, .instrument("Packed", modulators: [modulator]), .instrument("Pair"))
            .build()
    }()

    /// A stand-in for libsndfile: "decodes" a stream to as many frames as it has bytes, and refuses one that does
    /// not start with "OggS".
    static func decode(_ bytes: UnsafeRawBufferPointer, maximumFrames: Int) -> [Int16]? {
        guard bytes.starts(with: Array("OggS".utf8)) else { return nil }
        return (0..<min(bytes.count, maximumFrames + 1)).map { Int16(bytes[$0]) }
    }

    static func check(_ font: SoundFont) {
        for preset in font.presets {
            for zone in font.zones(of: preset) {
                #expect(zone.start <= zone.end && zone.end <= zone.dataFrameCount)
                #expect(zone.loopStart <= zone.dataFrameCount && zone.loopEnd <= zone.dataFrameCount)
                #expect(zone.keyLow <= zone.keyHigh && zone.keyHigh <= 127)
                #expect(zone.velocityLow <= zone.velocityHigh && zone.velocityHigh <= 127)
                #expect(zone.modulatorCount >= SoundFontModulator.applied.count)
                if zone.end > zone.start { _ = zone.data[zone.end - 1] }
            }
            _ = font.zones(preset: preset, key: 60, velocity: 100)
        }
    }

    @Test func theBaseFontLoads() throws {
        let font = try SoundFont(bytes: Self.base, decodeCompressed: Self.decode)
        #expect(font.presets.count == 2)
        #expect(font.zoneCount == 5)
        Self.check(font)
    }

    @Test func mutationsAndTruncationsOnlyEverThrowSoundFontError() {
        var random = SplitMix(seed: 0x5F2_2004)
        var (loaded, failed) = (0, 0)
        for _ in 0..<20_000 {
            var bytes = Self.base
            switch random.next() % 4 {
            case 0:
                bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
            case 1:
                for _ in 0..<(1 + random.next() % 8) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 2:
                // A 16- or 32-bit field set to an edge value: sizes, indices, sample positions.
                let values: [UInt64] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0xFFFF_FFFF, 0x8000_0000]
                let value = values[Int(random.next() % UInt64(values.count))]
                let offset = Int(random.next() % UInt64(bytes.count - 3))
                for index in 0..<(random.next() % 2 == 0 ? 2 : 4) {
                    bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))
                }
            default:
                let start = Int(random.next() % UInt64(bytes.count))
                let length = Int(random.next() % 64)
                bytes.removeSubrange(start..<min(bytes.count, start + length))
            }
            do {
                let font = try SoundFont(bytes: bytes, decodeCompressed: Self.decode)
                Self.check(font)
                loaded += 1
            } catch {
                _ = error.description  // typed: only SoundFontError reaches here
                failed += 1
            }
        }
        #expect(loaded > 1000 && failed > 1000, "loaded \(loaded), failed \(failed)")
    }
}
