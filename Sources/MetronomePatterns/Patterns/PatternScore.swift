import MetronomeModel

/// A pattern file after parsing and expansion, in either language: the sections in playing order and what the file
/// says about them, ready to become a `TempoMap`.
public struct PatternScore: Sendable {
    /// Every section in playing order (repeats and groups expanded, trainers split into their steps).
    public internal(set) var sections: [TempoSection]
    /// Each label (of a section or a group) with the index of its first section, in file order.
    public internal(set) var labels: [(name: String, section: Int)]
    /// Count-in bars the file asks for.
    public internal(set) var countInBars: Int
    /// The click style the file asks for, if any.
    public internal(set) var sound: ClickStyle?
    /// The instrument of the note track the file asks for, if any.
    public internal(set) var instrument: BuiltInInstrument?
    /// The SoundFont preset the note track asks for (`instrument soundfont …`), if any.
    public internal(set) var soundFont: SoundFontReference?
    /// The first line of the file's comment header (what `metronome patterns` shows).
    public internal(set) var summary: String?

    /// Creates a score.
    public init(
        sections: [TempoSection], labels: [(name: String, section: Int)] = [], countInBars: Int = 0,
        sound: ClickStyle? = nil, instrument: BuiltInInstrument? = nil, soundFont: SoundFontReference? = nil,
        summary: String? = nil
    ) {
        self.instrument = instrument
        self.soundFont = soundFont
        self.sections = sections
        self.labels = labels
        self.countInBars = countInBars
        self.sound = sound
        self.summary = summary
    }

    /// The tempo map to play.
    /// - Parameters:
    ///   - sampleRate: the output rate.
    ///   - startAt: a label, or a bar number from 1 as `check` prints it; playing starts there, bars keep their
    ///     numbers, and a section cut in the middle continues as it would have (a ramp from the tempo it had
    ///     reached, gap practice in its cycle).
    ///   - subdivision: replaces every section's subdivision when given.
    ///   - countInBars: replaces the file's count-in when given.
    /// - Throws: `InvalidValue` for an unknown label, a bar beyond the end, or a bad count-in or subdivision.
    public func map(
        sampleRate: SampleRate, startAt: String? = nil, subdivision: Int? = nil, countInBars: Int? = nil
    ) throws(InvalidValue) -> TempoMap {
        var sections = self.sections
        var firstBar = 0
        if let startAt {
            (sections, firstBar) = try cut(at: startAt)
        }
        if let subdivision {
            guard (1...TempoSection.maximumSubdivision).contains(subdivision) else {
                throw InvalidValue(
                    value: String(subdivision), reason: "subdivision must be from 1 to 16 clicks per beat")
            }
            for index in sections.indices { sections[index].subdivision = subdivision }
        }
        let map = try TempoMap(sections: sections, sampleRate: sampleRate, firstBar: firstBar)
        return try map.withCountIn(bars: countInBars ?? self.countInBars)
    }

    /// The sections from a label or bar on, and the number of the first bar.
    private func cut(at start: String) throws(InvalidValue) -> ([TempoSection], Int) {
        if let label = labels.first(where: { $0.name == start }) {
            let bar = sections[..<label.section].reduce(0) { $0.saturatingAdding($1.bars ?? 0) }
            return (Array(sections[label.section...]), bar)
        }
        guard let barNumber = Int(start), start.allSatisfy(\.isNumber) else {
            let known = labels.map(\.name)
            let list = known.isEmpty ? "the file has no labels" : "labels: " + known.joined(separator: ", ")
            throw InvalidValue(value: start, reason: "no section or group has this label (\(list))")
        }
        var bar = 0
        for (index, section) in sections.enumerated() {
            guard let bars = section.bars else {
                // An endless section may be entered up to `maximumBars` bars in, so bar numbers stay far from
                // Int.max.
                guard barNumber >= 1, barNumber - 1 - bar < MetroPattern.maximumBars else {
                    throw InvalidValue(
                        value: start,
                        reason: "the pattern plays forever from bar \(bar + 1); start at 1 to "
                            + "\(bar + MetroPattern.maximumBars)")
                }
                return ([section.dropping(bars: barNumber - 1 - bar)] + sections[(index + 1)...], barNumber - 1)
            }
            if barNumber - 1 < bar.saturatingAdding(bars), barNumber >= 1 {
                let rest = [section.dropping(bars: barNumber - 1 - bar)] + sections[(index + 1)...]
                return (rest, barNumber - 1)
            }
            bar = bar.saturatingAdding(bars)
        }
        throw InvalidValue(
            value: start, reason: "the pattern has \(bar) bar\(bar == 1 ? "" : "s"); start at 1 to \(bar)")
    }
}
