/// Merges every (preset zone × instrument zone) pair into the plain data of a voice zone (§8.5, §9.4, §9.5):
///
/// - A list's first zone without an instrument (sampleID) generator is its global zone; a later zone without one
///   is ignored.
/// - Generators: the default, replaced by the instrument's global zone, replaced by the instrument zone; then the
///   preset zone's value (or its global zone's) is added, for the generators a preset may set — never the sample
///   offsets, keynum, velocity, sampleModes, exclusiveClass or overridingRootKey.
/// - Key and velocity ranges: the instrument's and the preset's intersect; an empty intersection makes no zone.
/// - Modulators: the defaults, replaced or added to by the instrument's global zone, then its local zone (an
///   identical modulator replaces, another is appended); then the preset's (its local zone's replacing identical
///   ones of its global zone) are appended, so their effects add to the instrument's (§9.5.1).
struct SoundFontZoneBuilder {
    /// Generator values with a record of which are set.
    private struct Values {
        var values = SoundFontGenerators.defaults.values
        var isSet: UInt64 = 0

        mutating func apply(_ generators: ArraySlice<SoundFontHydra.Generator>) {
            for generator in generators {
                values[generator.number] = generator.value
                isSet |= 1 << UInt64(generator.number)
            }
        }

        /// A range generator's two bytes (low, high; high above 127 taken as 127), or 0...127 when not set.
        func range(_ generator: SoundFontGenerator) -> (low: Int, high: Int) {
            guard isSet & (1 << UInt64(generator.rawValue)) != 0 else { return (0, 127) }
            let value = Int(values[generator.rawValue])
            return (value & 0xFF, min(value >> 8 & 0xFF, 127))
        }
    }

    /// The generators a preset may not offset (§8.5), and the range and index generators handled apart.
    private static let presetExcluded: UInt64 = [0, 1, 2, 3, 4, 12, 45, 46, 47, 50, 54, 57, 58, 41, 43, 44, 53]
        .reduce(0) { $0 | 1 << UInt64($1) }

    private let hydra: SoundFontHydra
    private let samples: SoundFontSamples
    /// Each instrument's zones that point to a sample, so the loops visit only zones that can sound.
    private let playable: [[Int]]
    /// The most zones and modulator records the merge can write: the sizes of the tables to give `write`.
    let zoneCapacity: Int
    let modulatorCapacity: Int

    /// Counts what the merge needs.
    /// - Throws: `SoundFontError` when the pairs would make more than `SoundFont.maximumVoiceZones` zones or
    ///   `SoundFont.maximumModulators` modulator records.
    init(_ hydra: SoundFontHydra, _ samples: SoundFontSamples) throws(SoundFontError) {
        self.hydra = hydra
        self.samples = samples
        playable = hydra.instruments.map { instrument in
            hydra.instrumentZones[instrument.zones].indices.filter { hydra.instrumentZones[$0].target != nil }
        }
        (zoneCapacity, modulatorCapacity) = try Self.capacity(hydra, playable)
    }

    /// Merges every preset's zones into `zones` (room for `zoneCapacity`) and their modulator lists into
    /// `modulators` (room for `modulatorCapacity`; identical lists are written once and shared).
    /// - Returns: how many zones were written, and for each preset of the hydra, in its order, the range of its
    ///   zones.
    func write(
        zones table: UnsafeMutablePointer<SoundFontVoiceZone>,
        modulators modulatorTable: UnsafeMutablePointer<SoundFontModulator>
    ) -> (zoneCount: Int, presetZones: [Range<Int>]) {
        var zoneCount = 0
        var modulatorCount = 0
        var presetZones: [Range<Int>] = []
        var listOffsets: [[SoundFontModulator]: Int] = [:]
        for preset in hydra.presets {
            let first = zoneCount
            let zones = hydra.presetZones[preset.zones]
            let presetGlobal = zones.first.flatMap { $0.target == nil ? $0 : nil }
            for presetZone in zones {
                guard let instrumentIndex = presetZone.target else { continue }
                var presetValues = Values()
                var presetModulators: [SoundFontModulator] = []
                if let presetGlobal {
                    presetValues.apply(hydra.generators[presetGlobal.generators])
                    presetModulators.append(contentsOf: hydra.modulators[presetGlobal.modulators])
                }
                presetValues.apply(hydra.generators[presetZone.generators])
                Self.merge(hydra.modulators[presetZone.modulators], into: &presetModulators)
                let instrumentZones = hydra.instrumentZones[hydra.instruments[instrumentIndex].zones]
                let instrumentGlobal = instrumentZones.first.flatMap { $0.target == nil ? $0 : nil }
                for zoneIndex in playable[instrumentIndex] {
                    let instrumentZone = hydra.instrumentZones[zoneIndex]
                    guard let sampleIndex = instrumentZone.target, let sample = samples.resolved[sampleIndex] else {
                        continue
                    }
                    var values = Values()
                    var list = SoundFontModulator.applied
                    if let instrumentGlobal {
                        values.apply(hydra.generators[instrumentGlobal.generators])
                        Self.merge(hydra.modulators[instrumentGlobal.modulators], into: &list)
                    }
                    values.apply(hydra.generators[instrumentZone.generators])
                    Self.merge(hydra.modulators[instrumentZone.modulators], into: &list)
                    guard let keys = Self.intersection(values.range(.keyRange), presetValues.range(.keyRange)),
                        let velocities = Self.intersection(
                            values.range(.velocityRange), presetValues.range(.velocityRange))
                    else { continue }
                    var generators = SoundFontGenerators(values: values.values)
                    for number in 0..<SoundFontGenerator.slotCount
                    where presetValues.isSet & (1 << UInt64(number)) != 0
                        && Self.presetExcluded & (1 << UInt64(number)) == 0
                    {
                        generators.values[number] += presetValues.values[number]
                    }
                    for generator in [SoundFontGenerator.keyRange, .velocityRange, .instrument, .sampleID] {
                        generators[generator] = generator.defaultValue
                    }
                    list.append(contentsOf: presetModulators)
                    let offset: Int
                    if let known = listOffsets[list] {
                        offset = known
                    } else {
                        offset = modulatorCount
                        listOffsets[list] = offset
                        (modulatorTable + offset).initialize(from: list, count: list.count)
                        modulatorCount += list.count
                    }
                    let header = hydra.samples[sampleIndex]
                    (table + zoneCount).initialize(
                        to: SoundFontVoiceZone(
                            keyLow: UInt8(keys.low), keyHigh: UInt8(keys.high), velocityLow: UInt8(velocities.low),
                            velocityHigh: UInt8(velocities.high), generators: generators,
                            modulators: UnsafePointer(modulatorTable + offset), modulatorCount: Int32(list.count),
                            data: sample.data, low: sample.low, dataFrameCount: sample.frameCount,
                            start: sample.start, end: sample.end, loopStart: sample.loopStart,
                            loopEnd: sample.loopEnd, sampleRate: Int32(clamping: header.rate),
                            originalKey: header.originalKey, pitchCorrection: header.correction,
                            sampleType: header.type & 0x0F))
                    zoneCount += 1
                }
            }
            presetZones.append(first..<zoneCount)
        }
        return (zoneCount, presetZones)
    }

    /// Each modulator replaces an identical one in `list` or is appended.
    private static func merge(_ modulators: ArraySlice<SoundFontModulator>, into list: inout [SoundFontModulator]) {
        guard !modulators.isEmpty else { return }
        var positions: [UInt64: Int] = [:]
        for (index, modulator) in list.enumerated() { positions[SoundFontHydra.identity(modulator)] = index }
        for modulator in modulators {
            let identity = SoundFontHydra.identity(modulator)
            if let index = positions[identity] {
                list[index] = modulator
            } else {
                positions[identity] = list.count
                list.append(modulator)
            }
        }
    }

    /// The keys (or velocities) in both ranges, or `nil` when none.
    private static func intersection(
        _ a: (low: Int, high: Int), _ b: (low: Int, high: Int)
    ) -> (low: Int, high: Int)? {
        let both = (low: max(a.low, b.low), high: min(a.high, b.high))
        return both.low <= both.high ? both : nil
    }

    /// Counts the pairs (and the modulator records they could need) before merging anything, so a small file cannot
    /// ask for a huge table or hours of work. Every count is below 2¹⁶ × 2¹⁶ per step and checked after each step.
    private static func capacity(
        _ hydra: SoundFontHydra, _ playable: [[Int]]
    ) throws(SoundFontError) -> (zones: Int, modulators: Int) {
        let records = hydra.instruments.indices.map { index in
            playable[index].reduce(0) { $0 + hydra.instrumentZones[$1].modulators.count }
        }
        let globals = hydra.instruments.map { instrument in
            hydra.instrumentZones[instrument.zones].first.map { $0.target == nil ? $0.modulators.count : 0 } ?? 0
        }
        var zoneCount = 0
        var recordCount = 0
        for preset in hydra.presets {
            let zones = hydra.presetZones[preset.zones]
            let presetGlobal = zones.first.map { $0.target == nil ? $0.modulators.count : 0 } ?? 0
            for zone in zones {
                guard let instrument = zone.target else { continue }
                let pairs = playable[instrument].count
                zoneCount += pairs
                recordCount +=
                    pairs
                    * (SoundFontModulator.applied.count + globals[instrument] + presetGlobal + zone.modulators.count)
                    + records[instrument]
                guard zoneCount <= SoundFont.maximumVoiceZones, recordCount <= SoundFont.maximumModulators else {
                    throw SoundFontError(
                        offset: preset.offset,
                        "the presets up to \"\(preset.name)\" make more than \(SoundFont.maximumVoiceZones) voice "
                            + "zones or \(SoundFont.maximumModulators) modulators")
                }
            }
        }
        return (zoneCount, recordCount)
    }
}
