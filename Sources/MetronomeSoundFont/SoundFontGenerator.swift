/// The generators of SoundFont 2.04 (§8.1.2), by their operator numbers. Values are kept in the specification's
/// units (timecents, centibels, cents, absolute cents, 0.1 %), as the font stores them.
public enum SoundFontGenerator: Int, Sendable, CaseIterable {
    case startAddressOffset = 0
    case endAddressOffset = 1
    case startLoopAddressOffset = 2
    case endLoopAddressOffset = 3
    case startAddressCoarseOffset = 4
    case modLFOToPitch = 5
    case vibratoLFOToPitch = 6
    case modEnvelopeToPitch = 7
    case initialFilterCutoff = 8
    case initialFilterQ = 9
    case modLFOToFilterCutoff = 10
    case modEnvelopeToFilterCutoff = 11
    case endAddressCoarseOffset = 12
    case modLFOToVolume = 13
    case chorusSend = 15
    case reverbSend = 16
    case pan = 17
    case delayModLFO = 21
    case frequencyModLFO = 22
    case delayVibratoLFO = 23
    case frequencyVibratoLFO = 24
    case delayModEnvelope = 25
    case attackModEnvelope = 26
    case holdModEnvelope = 27
    case decayModEnvelope = 28
    case sustainModEnvelope = 29
    case releaseModEnvelope = 30
    case keyToModEnvelopeHold = 31
    case keyToModEnvelopeDecay = 32
    case delayVolumeEnvelope = 33
    case attackVolumeEnvelope = 34
    case holdVolumeEnvelope = 35
    case decayVolumeEnvelope = 36
    case sustainVolumeEnvelope = 37
    case releaseVolumeEnvelope = 38
    case keyToVolumeEnvelopeHold = 39
    case keyToVolumeEnvelopeDecay = 40
    case instrument = 41
    case keyRange = 43
    case velocityRange = 44
    case startLoopAddressCoarseOffset = 45
    case keyNumber = 46
    case velocity = 47
    case initialAttenuation = 48
    case endLoopAddressCoarseOffset = 50
    case coarseTune = 51
    case fineTune = 52
    case sampleID = 53
    case sampleModes = 54
    case scaleTuning = 56
    case exclusiveClass = 57
    case overridingRootKey = 58

    /// Operator numbers run from 0 to 60 (some unused); a generator list has one slot for each.
    public static let slotCount = 61

    /// The specification's default value (§8.1.3); −1 for keyNumber, velocity and overridingRootKey means "not set".
    public var defaultValue: Int32 {
        switch self {
        case .initialFilterCutoff: return 13500
        case .delayModLFO, .delayVibratoLFO, .delayModEnvelope, .attackModEnvelope, .holdModEnvelope,
            .decayModEnvelope, .releaseModEnvelope, .delayVolumeEnvelope, .attackVolumeEnvelope,
            .holdVolumeEnvelope, .decayVolumeEnvelope, .releaseVolumeEnvelope:
            return -12000
        case .keyRange, .velocityRange: return 127 << 8  // lo 0, hi 127 (amount bytes lo, hi)
        case .keyNumber, .velocity, .overridingRootKey: return -1
        case .scaleTuning: return 100
        default: return 0
        }
    }
}

/// One value per generator slot (61), in the font's units: a zone's own values or a merged voice's.
public struct SoundFontGenerators: Sendable {
    /// Indexed by operator number.
    public var values: InlineArray<61, Int32>

    /// Every generator at its default.
    public static let defaults: SoundFontGenerators = {
        var values = InlineArray<61, Int32>(repeating: 0)
        for generator in SoundFontGenerator.allCases { values[generator.rawValue] = generator.defaultValue }
        return SoundFontGenerators(values: values)
    }()

    public init(values: InlineArray<61, Int32>) { self.values = values }

    public subscript(_ generator: SoundFontGenerator) -> Int32 {
        get { values[generator.rawValue] }
        set { values[generator.rawValue] = newValue }
    }
}

/// A modulator record (§8.2): `amount × transform(source) × amountSource` is added to `destination`.
/// Sources are 16-bit modulator source enumerations (§8.2.1: index, CC flag, direction, polarity, type).
public struct SoundFontModulator: Sendable, Hashable {
    public var source: UInt16
    public var destination: UInt16
    public var amount: Int16
    public var amountSource: UInt16
    public var transform: UInt16

    public init(source: UInt16, destination: UInt16, amount: Int16, amountSource: UInt16, transform: UInt16) {
        self.source = source
        self.destination = destination
        self.amount = amount
        self.amountSource = amountSource
        self.transform = transform
    }

    /// Two modulators are identical (§9.5.1: the later one replaces or adds to the earlier) when all but the amount
    /// match.
    public func isIdentical(to other: SoundFontModulator) -> Bool {
        source == other.source && destination == other.destination && amountSource == other.amountSource
            && transform == other.transform
    }
}

/// Everything one voice of a SoundFont note needs, merged from a preset zone and an instrument zone (global zones
/// applied): plain data with no references, so the render thread reads it through a pointer without reference
/// counting. The `SoundFont` that made it owns the sample data and the modulator list it points into and must
/// outlive every voice playing it.
public struct SoundFontVoiceZone: @unchecked Sendable {
    // @unchecked: the pointers are into memory the owning `SoundFont` writes once while loading and only reads
    // afterwards; it is freed (or unmapped) only when the font goes, after every voice using it.
    /// Keys and velocities the zone plays: the intersection of the preset zone's and the instrument zone's ranges.
    public var keyLow: UInt8
    public var keyHigh: UInt8
    public var velocityLow: UInt8
    public var velocityHigh: UInt8
    /// The merged generators: the instrument zone's value (or the instrument's global zone's, or the default), plus
    /// the preset zone's value (or the preset's global zone's) for the generators a preset may offset (§8.5).
    /// Range and index generators (keyRange, velocityRange, instrument, sampleID) are left at their defaults;
    /// sampleModes, exclusiveClass, overridingRootKey, keyNumber and velocity come from the instrument side only.
    public var generators: SoundFontGenerators
    /// This zone's modulators: `modulatorCount` records from `modulators` (defaults, overridden or added to by the
    /// instrument's, then the preset's added, §9.5).
    public var modulators: UnsafePointer<SoundFontModulator>
    public var modulatorCount: Int32
    /// The sample's data: 16-bit frames, the whole sample chunk (`start`/`end`/loops index into it); `low`, when the
    /// font has an sm24 chunk, its low bytes (value = (Int32(data[i]) << 8 | Int32(low[i])) / 2²³).
    public var data: UnsafePointer<Int16>
    public var low: UnsafePointer<UInt8>?
    /// Frames in `data` (bounds for every offset the generators add).
    public var dataFrameCount: Int
    /// The sample header's frames in `data`: first, one past last, loop start, loop end (one past the last loop
    /// frame), before any generator offset.
    public var start: Int
    public var end: Int
    public var loopStart: Int
    public var loopEnd: Int
    /// The sample's own rate, original key and pitch correction (cents).
    public var sampleRate: Int32
    public var originalKey: UInt8
    public var pitchCorrection: Int8
    /// §7.10 sfSampleType without the ROM bit: 1 mono, 2 right, 4 left, 8 linked.
    public var sampleType: UInt16

    public init(
        keyLow: UInt8, keyHigh: UInt8, velocityLow: UInt8, velocityHigh: UInt8, generators: SoundFontGenerators,
        modulators: UnsafePointer<SoundFontModulator>, modulatorCount: Int32, data: UnsafePointer<Int16>,
        low: UnsafePointer<UInt8>?, dataFrameCount: Int, start: Int, end: Int, loopStart: Int, loopEnd: Int,
        sampleRate: Int32, originalKey: UInt8, pitchCorrection: Int8, sampleType: UInt16
    ) {
        self.keyLow = keyLow
        self.keyHigh = keyHigh
        self.velocityLow = velocityLow
        self.velocityHigh = velocityHigh
        self.generators = generators
        self.modulators = modulators
        self.modulatorCount = modulatorCount
        self.data = data
        self.low = low
        self.dataFrameCount = dataFrameCount
        self.start = start
        self.end = end
        self.loopStart = loopStart
        self.loopEnd = loopEnd
        self.sampleRate = sampleRate
        self.originalKey = originalKey
        self.pitchCorrection = pitchCorrection
        self.sampleType = sampleType
    }

    /// Whether the zone plays `key` at `velocity`.
    public func plays(key: Int, velocity: Int) -> Bool {
        (Int(keyLow)...Int(keyHigh)).contains(key) && (Int(velocityLow)...Int(velocityHigh)).contains(velocity)
    }
}
