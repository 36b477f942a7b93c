import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// How preset and instrument zones merge into voice zones (SoundFont 2.04 §8.5, §9.4, §9.5), on fonts built here.
@Suite struct SoundFontMergingTests {
    let frames = (0..<200).map { Int16(truncatingIfNeeded: $0 * 100) }

    /// The only voice zone of a font's first preset for key 60, and the font, which must outlive it (the zone
    /// points into it).
    func onlyZone(_ builder: SoundFontBuilder) throws -> (font: SoundFont, zone: SoundFontVoiceZone) {
        let font = try SoundFont(bytes: builder.build())
        let preset = try #require(font.presets.first)
        let zones = font.zones(preset: preset, key: 60, velocity: 100)
        try #require(zones.count == 1)
        return (font, zones[0].pointee)
    }

    func modulators(of zone: SoundFontVoiceZone) -> [SoundFontModulator] {
        Array(UnsafeBufferPointer(start: zone.modulators, count: Int(zone.modulatorCount)))
    }

    @Test func aZoneGetsItsSampleAndItsGenerators() throws {
        let builder = SoundFontBuilder(name: "Merging")
            .sample("sine", frames: frames, rate: 44100, key: 69, correction: -3, loop: 10..<110)
            .instrument("Sine", .sample("sine", [.attackVolumeEnvelope: -1200, .sampleModes: 1]))
            .preset("Sine", bank: 0, program: 5, instrument: "Sine")
        let (font, zone) = try onlyZone(builder)
        #expect(font.name == "Merging")
        #expect(font.version == SoundFontVersion(major: 2, minor: 4))
        #expect(font.presets.map(\.description) == ["000:005 Sine"])
        #expect(zone.generators[.attackVolumeEnvelope] == -1200)
        #expect(zone.generators[.sampleModes] == 1)
        #expect(zone.generators[.decayVolumeEnvelope] == -12000)
        #expect(zone.generators[.initialFilterCutoff] == 13500)
        #expect((zone.start, zone.end, zone.loopStart, zone.loopEnd) == (0, 200, 10, 110))
        #expect((zone.sampleRate, zone.originalKey, zone.pitchCorrection, zone.sampleType) == (44100, 69, -3, 1))
        #expect(zone.dataFrameCount == 246)
        #expect(zone.data[3] == 300 && zone.low == nil)
        #expect((zone.keyLow, zone.keyHigh, zone.velocityLow, zone.velocityHigh) == (0, 127, 0, 127))
        #expect(modulators(of: zone) == SoundFontModulator.applied)
        withExtendedLifetime(font) {}
    }

    @Test func theGlobalZonesGiveDefaultsThatLocalZonesReplace() throws {
        let builder = SoundFontBuilder()
            .sample("a", frames: frames)
            .instrument(
                "I", .global([.attackVolumeEnvelope: -2000, .releaseVolumeEnvelope: 100]),
                .sample("a", [.attackVolumeEnvelope: -1000])
            )
            .preset("P", program: 0, .instrument("I"))
        let zone = try onlyZone(builder).zone
        #expect(zone.generators[.attackVolumeEnvelope] == -1000)
        #expect(zone.generators[.releaseVolumeEnvelope] == 100)
    }

    @Test func presetValuesAddToTheInstrumentsOnlyWhereAPresetMaySetThem() throws {
        let builder = SoundFontBuilder()
            .sample("a", frames: frames)
            .instrument("I", .sample("a", [.attackVolumeEnvelope: 1200, .coarseTune: 2, .exclusiveClass: 3]))
            .preset(
                "P", program: 0, .global([.attackVolumeEnvelope: 100, .fineTune: 7]),
                .instrument(
                    "I",
                    [
                        .attackVolumeEnvelope: 2400, .coarseTune: -1, .exclusiveClass: 9, .sampleModes: 1,
                        .startAddressOffset: 5, .overridingRootKey: 50, .keyNumber: 3, .initialAttenuation: 40,
                    ]))
        let zone = try onlyZone(builder).zone
        #expect(zone.generators[.attackVolumeEnvelope] == 3600)  // §8.5's example: the local preset value wins
        #expect(zone.generators[.fineTune] == 7)  // from the preset's global zone
        #expect(zone.generators[.coarseTune] == 1)
        #expect(zone.generators[.initialAttenuation] == 40)
        #expect(zone.generators[.exclusiveClass] == 3)
        #expect(zone.generators[.sampleModes] == 0)
        #expect(zone.generators[.startAddressOffset] == 0)
        #expect(zone.generators[.overridingRootKey] == -1)
        #expect(zone.generators[.keyNumber] == -1)
        #expect(zone.generators[.keyRange] == 127 << 8 && zone.generators[.sampleID] == 0)
    }

    @Test func rangesIntersectAndAnEmptyIntersectionMakesNoZone() throws {
        let font = try SoundFont(
            bytes: SoundFontBuilder()
                .sample("low", frames: frames).sample("high", frames: frames)
                .instrument(
                    "I", .sample("low", keys: 0...59, velocities: 1...80), .sample("high", keys: 60...127)
                )
                .preset("P", program: 0, .instrument("I", keys: 50...70, velocities: 64...127))
                .preset("Q", program: 1, .instrument("I", keys: 100...110, velocities: 100...127))
                .build())
        let p = try #require(font.preset(bank: 0, program: 0))
        let zones = font.zones(of: p)
        #expect(
            zones.map { [$0.keyLow, $0.keyHigh, $0.velocityLow, $0.velocityHigh] } == [
                [50, 59, 64, 80], [60, 70, 64, 127],
            ])
        #expect(font.zones(preset: p, key: 55, velocity: 70).count == 1)
        #expect(font.zones(preset: p, key: 55, velocity: 90).isEmpty)
        #expect(font.zones(preset: p, key: 65, velocity: 127).map { $0.pointee.keyLow } == [60])
        let q = try #require(font.preset(bank: 0, program: 1))
        #expect(font.zones(of: q).map { $0.keyLow } == [100])  // "low" does not reach key 100
        #expect(font.zoneCount == 3)
    }

    @Test func instrumentModulatorsReplaceIdenticalOnesAndPresetModulatorsAdd() throws {
        let louder = SoundFontModulator(source: 0x0502, destination: 48, amount: 480, amountSource: 0, transform: 0)
        let globalCC1 = SoundFontModulator(source: 0x0081, destination: 6, amount: 10, amountSource: 0, transform: 0)
        let localCC1 = SoundFontModulator(source: 0x0081, destination: 6, amount: 20, amountSource: 0, transform: 0)
        let cc2 = SoundFontModulator(source: 0x0082, destination: 8, amount: 30, amountSource: 0, transform: 0)
        let presetCC2 = SoundFontModulator(source: 0x0082, destination: 8, amount: 5, amountSource: 0, transform: 0)
        let presetGlobal = SoundFontModulator(source: 0x0083, destination: 17, amount: 7, amountSource: 0, transform: 0)
        let presetLocal = SoundFontModulator(source: 0x0083, destination: 17, amount: 8, amountSource: 0, transform: 0)
        let builder = SoundFontBuilder()
            .sample("a", frames: frames)
            .instrument(
                "I", .global(modulators: [louder, globalCC1]), .sample("a", modulators: [localCC1, cc2, cc2])
            )
            .preset(
                "P", program: 0, .global(modulators: [presetGlobal]),
                .instrument("I", modulators: [presetCC2, presetLocal]))
        let (font, zone) = try onlyZone(builder)
        var expected = SoundFontModulator.applied
        expected[0] = louder
        expected[2] = localCC1
        expected += [cc2, presetLocal, presetCC2]
        #expect(modulators(of: zone) == expected)
        withExtendedLifetime(font) {}
    }

    @Test func zonesOfAnInstrumentWithoutSampleAfterTheFirstAreIgnored() throws {
        let font = try SoundFont(
            bytes: SoundFontBuilder()
                .sample("a", frames: frames)
                .instrument("I", .sample("a", [.pan: 100]), .global([.pan: -100]), .sample("a", [.pan: 200]))
                .preset("P", program: 0, .instrument("I"))
                .build())
        #expect(font.zones(of: font.presets[0]).map { $0.generators[.pan] } == [100, 200])
    }

    @Test func unknownGeneratorsAndGeneratorsAfterTheSampleAreIgnored() throws {
        let zone = SoundFontBuilderZone.global([.pan: 5]).withRawGenerators([(14, 99), (59, 3), (60, 1), (200, 7)])
        let font = try SoundFont(
            bytes: SoundFontBuilder()
                .sample("a", frames: frames)
                .instrument("I", zone, .sample("a"))
                .preset("P", program: 0, .instrument("I"))
                .build())
        let merged = font.zones(of: font.presets[0])[0]
        #expect(merged.generators[.pan] == 5)
        #expect(merged.generators.values[14] == 0 && merged.generators.values[59] == 0)
    }

    @Test func ofTwoIdenticalModulatorsInAZoneTheSecondCounts() throws {
        let first = SoundFontModulator(source: 0x0082, destination: 8, amount: 30, amountSource: 0, transform: 0)
        let second = SoundFontModulator(source: 0x0082, destination: 8, amount: 31, amountSource: 0, transform: 0)
        let other = SoundFontModulator(source: 0x0083, destination: 8, amount: 1, amountSource: 0, transform: 0)
        let (font, zone) = try onlyZone(
            SoundFontBuilder()
                .sample("a", frames: frames)
                .instrument("I", .sample("a", modulators: [first, other, second]))
                .preset("P", program: 0, .instrument("I")))
        #expect(modulators(of: zone) == SoundFontModulator.applied + [second, other])
        withExtendedLifetime(font) {}
    }

    @Test func rangesCountOnlyWhereTheSpecificationPutsThem() throws {
        let lateKeys = SoundFontBuilderZone.sample("a", [.pan: 1]).withRawGenerators([(43, 60 | 60 << 8)])
        let lateVelocities = SoundFontBuilderZone.sample("a", [.pan: 1]).withRawGenerators([(44, 1 | 10 << 8)])
        let font = try SoundFont(
            bytes: SoundFontBuilder()
                .sample("a", frames: frames)
                .instrument("I", lateKeys, lateVelocities, .sample("a", keys: 60...60, velocities: 1...10))
                .preset("P", program: 0, .instrument("I"))
                .build())
        #expect(
            font.zones(of: font.presets[0]).map { [$0.keyLow, $0.keyHigh, $0.velocityLow, $0.velocityHigh] } == [
                [0, 127, 0, 127], [0, 127, 0, 127], [60, 60, 1, 10],
            ])
    }
}
