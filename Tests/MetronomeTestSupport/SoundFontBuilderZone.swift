import MetronomeSoundFont

/// A zone for `SoundFontBuilder`: an instrument zone playing a sample, a preset zone playing an instrument, or a
/// global zone (no sample or instrument) whose values the list's other zones start from.
public struct SoundFontBuilderZone: Sendable {
    /// The sample (instrument zones) or instrument (preset zones) it plays, by name; `nil` for a global zone.
    public var target: String?
    /// The keyRange generator, written first as §7.5 asks.
    public var keys: ClosedRange<Int>?
    /// The velocityRange generator, written after the key range.
    public var velocities: ClosedRange<Int>?
    /// The other generators, written in this order after the ranges.
    public var generators: [(SoundFontGenerator, Int32)]
    /// Raw generator records written after `generators` (an operator number the specification leaves unused, or a
    /// value out of range), for tests of what the reader ignores.
    public var rawGenerators: [(number: UInt16, amount: UInt16)]
    /// The zone's modulators, in this order.
    public var modulators: [SoundFontModulator]

    /// An instrument zone playing `sample`.
    /// - Parameters:
    ///   - sample: a sample's name given to `SoundFontBuilder.sample`.
    ///   - generators: values in the specification's units, e.g. `[.attackVolumeEnvelope: -1200, .sampleModes: 1]`.
    ///   - keys: the keyRange generator, if any.
    ///   - velocities: the velocityRange generator, if any.
    ///   - modulators: the zone's modulators.
    public static func sample(
        _ sample: String, _ generators: KeyValuePairs<SoundFontGenerator, Int32> = [:], keys: ClosedRange<Int>? = nil,
        velocities: ClosedRange<Int>? = nil, modulators: [SoundFontModulator] = []
    ) -> SoundFontBuilderZone {
        SoundFontBuilderZone(
            target: sample, keys: keys, velocities: velocities, generators: generators.map { ($0.key, $0.value) },
            rawGenerators: [], modulators: modulators)
    }

    /// A preset zone playing `instrument`; its generators add to the instrument's.
    /// - Parameters: as `sample(_:_:keys:velocities:modulators:)`, with an instrument's name.
    public static func instrument(
        _ instrument: String, _ generators: KeyValuePairs<SoundFontGenerator, Int32> = [:],
        keys: ClosedRange<Int>? = nil, velocities: ClosedRange<Int>? = nil, modulators: [SoundFontModulator] = []
    ) -> SoundFontBuilderZone {
        SoundFontBuilderZone(
            target: instrument, keys: keys, velocities: velocities, generators: generators.map { ($0.key, $0.value) },
            rawGenerators: [], modulators: modulators)
    }

    /// A global zone: defaults for the other zones of its instrument or preset. Give it as the first zone.
    /// - Parameters: as `sample(_:_:keys:velocities:modulators:)`, without a target.
    public static func global(
        _ generators: KeyValuePairs<SoundFontGenerator, Int32> = [:], keys: ClosedRange<Int>? = nil,
        velocities: ClosedRange<Int>? = nil, modulators: [SoundFontModulator] = []
    ) -> SoundFontBuilderZone {
        SoundFontBuilderZone(
            target: nil, keys: keys, velocities: velocities, generators: generators.map { ($0.key, $0.value) },
            rawGenerators: [], modulators: modulators)
    }

    /// This zone with raw generator records added after its others.
    public func withRawGenerators(_ records: [(number: UInt16, amount: UInt16)]) -> SoundFontBuilderZone {
        var zone = self
        zone.rawGenerators += records
        return zone
    }
}
