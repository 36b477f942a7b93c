import MetronomeModel

/// Metronome's own pattern language (`.metro` files), parsed into a tree of sections and repeated groups.
///
/// The grammar, every keyword and its default are documented in Patterns/README.md. In short: a file is lines; a
/// line is a setting (`tempo 120`, `meter 7/8 2+2+3` …, sticky for every later section), a section
/// (`[label:] N bars [x R] [clauses]` or `[label:] forever [clauses]`, its clauses applying to it alone), a group
/// (`[label:] repeat R [trainer …]` … `end`), `play LABEL [x R]` (`xR` alike), or a file directive (`count-in N`,
/// `sound NAME`). `#` at the start of a line or after a space begins a comment; the first comment lines are the
/// file's header.
public struct MetroPattern: Sendable {
    /// The tempo of a section in quarter notes per minute, as written (before any command-line override).
    enum TempoSpec: Sendable, Hashable {
        case constant(Double)
        case ramp(Double, Double)
    }

    /// `trainer +STEP every N bars|repeats to LIMIT`, in quarter notes per minute.
    struct Trainer: Sendable, Hashable {
        var step: Double
        var every: Int
        var perRepeat: Bool
        var limit: Double
    }

    /// A section line with the settings in force where it was written.
    struct SectionSpec: Sendable, Hashable {
        var label: String?
        var bars: Int?
        var repeats: Int
        var tempo: TempoSpec
        var meter: Meter
        var groups: [Int]?
        var accents: AccentPattern?
        var subdivision: Int
        var subdivisionLevels: [BeatLevel]
        var swing: Swing?
        var volume: Float
        var gap: GapPractice?
        var layers: [PolyLayer]
        var noteTrack: NoteTrack?
        var trainer: Trainer?
    }

    /// `repeat R` … `end`.
    struct GroupSpec: Sendable, Hashable {
        var label: String?
        var repeats: Int
        var trainer: Trainer?
        var items: [Item]

        /// The written starting tempo of the group's first section.
        var firstTempo: Double? {
            for item in items {
                switch item {
                case .section(let section):
                    switch section.tempo {
                    case .constant(let value), .ramp(let value, _): return value
                    }
                case .group(let group): if let value = group.firstTempo { return value }
                }
            }
            return nil
        }
    }

    indirect enum Item: Sendable, Hashable {
        case section(SectionSpec)
        case group(GroupSpec)

        var label: String? {
            switch self {
            case .section(let section): section.label
            case .group(let group): group.label
            }
        }

        /// Sections this item expands to (trainer steps counted from the file's own tempos).
        var expandedCount: Int {
            switch self {
            case .section(let section):
                guard let trainer = section.trainer, !trainer.perRepeat, case .constant(let start) = section.tempo
                else { return section.repeats }
                return trainer.sectionCount(start: start, bars: section.bars, repeats: section.repeats)
            case .group(let group):
                return group.repeats.saturatingMultiplied(
                    by: group.items.reduce(0) { $0.saturatingAdding($1.expandedCount) })
            }
        }
    }

    /// The most sections a file may expand to (a guard against `repeat` nested without end), checked before
    /// anything is expanded, whatever the nesting.
    public static let maximumSections = 200_000
    /// The most bars one section line (or one klick map entry) may have, and the most bars between a trainer's
    /// steps.
    public static let maximumBars = 1_000_000
    /// The largest repeat count (`xR`, `repeat R`), and the most repeats between a trainer's steps.
    public static let maximumRepeats = 10_000

    let items: [Item]
    /// Count-in bars the file asks for (`count-in N`).
    public let countInBars: Int
    /// Click style the file asks for (`sound NAME`).
    public let sound: ClickStyle?
    /// Instrument of the note track (`instrument NAME`).
    public let instrument: BuiltInInstrument?
    /// SoundFont preset of the note track (`instrument soundfont FILE program N bank B`).
    public let soundFont: SoundFontReference?
    /// First line of the comment header.
    public let summary: String?

    /// Parses a whole file.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in error messages.
    /// - Throws: `PatternError` at the first malformed line, with its line, column and text.
    public static func parse(_ text: String, file: String) throws(PatternError) -> MetroPattern {
        var parser = MetroParser(file: file)
        return try parser.parse(text)
    }

    /// Expands repeats, groups and trainers into the sections to play.
    /// - Parameter tempo: a command-line tempo override (see `TempoOverride`).
    /// - Throws: `InvalidValue` when the override takes a tempo outside 1...1000.
    public func score(tempo: TempoOverride = .none) throws(InvalidValue) -> PatternScore {
        var expander = MetroExpander(tempo: tempo)
        for item in items { try expander.expand(item, offset: 0, limit: nil) }
        return PatternScore(
            sections: expander.sections, labels: expander.labels, countInBars: countInBars, sound: sound,
            instrument: instrument, soundFont: soundFont, summary: summary)
    }

    init(
        items: [Item], countInBars: Int, sound: ClickStyle?, instrument: BuiltInInstrument?,
        soundFont: SoundFontReference? = nil, summary: String?
    ) {
        self.soundFont = soundFont
        self.items = items
        self.countInBars = countInBars
        self.sound = sound
        self.instrument = instrument
        self.summary = summary
    }
}

/// Turns the tree into sections, applying a tempo override on the way.
struct MetroExpander {
    let tempo: TempoOverride
    var sections: [TempoSection] = []
    var labels: [(name: String, section: Int)] = []
    private var seen: Set<String> = []

    init(tempo: TempoOverride) { self.tempo = tempo }

    /// Expands one item. `offset` is added to every tempo (a group trainer's climb), capped by `limit`.
    mutating func expand(_ item: MetroPattern.Item, offset: Double, limit: Double?) throws(InvalidValue) {
        if let label = item.label, seen.insert(label).inserted {
            labels.append((label, sections.count))
        }
        switch item {
        case .section(let spec): try expandSection(spec, offset: offset, limit: limit)
        case .group(let group):
            // The limit moves with an override as it would for the group's first tempo.
            let reference = group.firstTempo ?? 120
            let trainer = group.trainer.map { trainer in
                tempo.trainer(start: reference, step: trainer.step, limit: trainer.limit)
            }
            for repetition in 0..<group.repeats {
                var climb = offset
                var cap = limit
                if let trainer, let spec = group.trainer {
                    climb += Double(repetition / spec.every) * trainer.step
                    cap = trainer.limit
                }
                for child in group.items { try expand(child, offset: climb, limit: cap) }
            }
        }
    }

    /// A tempo moved by `offset` but not past `limit` (a tempo already beyond the limit stays where it is).
    private func climbed(_ value: Double, offset: Double, limit: Double?) -> Double {
        guard let limit, offset != 0 else { return value + offset }
        return offset > 0 ? min(value + offset, max(value, limit)) : max(value + offset, min(value, limit))
    }

    private mutating func expandSection(_ spec: MetroPattern.SectionSpec, offset: Double, limit: Double?)
        throws(InvalidValue)
    {
        let name = spec.label.map { "section '\($0)'" } ?? "a section"
        var start: Double
        var end: Double?
        switch spec.tempo {
        case .constant(let value): start = tempo.constant(value)
        case .ramp(let from, let to): (start, end) = tempo.ramp(from, to)
        }
        guard let trainer = spec.trainer else {
            start = climbed(start, offset: offset, limit: limit)
            end = end.map { climbed($0, offset: offset, limit: limit) }
            for _ in 0..<spec.repeats {
                sections.append(try section(spec, bars: spec.bars, start, end, name: name, gapPhase: 0))
            }
            return
        }
        guard case .constant(let written) = spec.tempo else { return }
        let plan = tempo.trainer(start: written, step: trainer.step, limit: trainer.limit)
        func step(_ k: Int) -> Double {
            let value = plan.start + Double(k) * plan.step
            return plan.step > 0 ? min(value, plan.limit) : max(value, plan.limit)
        }
        if trainer.perRepeat {
            for repetition in 0..<spec.repeats {
                let value = climbed(step(repetition / trainer.every), offset: offset, limit: limit)
                sections.append(try section(spec, bars: spec.bars, value, nil, name: name, gapPhase: 0))
            }
            return
        }
        // Steps of `every` bars; the step that reaches the limit takes the rest of the section.
        let steps = MetroPattern.Trainer.stepsToLimit(from: plan.start, step: plan.step, limit: plan.limit)
        let total = spec.bars.map { $0 * spec.repeats }
        var played = 0
        var k = 0
        while total.map({ played < $0 }) ?? true {
            let atLimit = k >= steps
            let remaining = total.map { $0 - played }
            let bars = atLimit ? remaining : min(trainer.every, remaining ?? trainer.every)
            let value = climbed(step(k), offset: offset, limit: limit)
            sections.append(try section(spec, bars: bars, value, nil, name: name, gapPhase: played))
            guard let bars else { break }
            played += bars
            k += 1
        }
    }

    private func section(
        _ spec: MetroPattern.SectionSpec, bars: Int?, _ start: Double, _ end: Double?, name: String, gapPhase: Int
    ) throws(InvalidValue) -> TempoSection {
        let startTempo = try tempo.checked(start, name)
        let endTempo = try end.map { value throws(InvalidValue) in try tempo.checked(value, name) }
        return try TempoSection(
            label: spec.label, bars: bars, meter: spec.meter, tempo: startTempo, endTempo: endTempo,
            accents: spec.accents, subdivision: spec.subdivision, subdivisionLevels: spec.subdivisionLevels,
            volume: spec.volume, groups: spec.groups, swing: spec.swing, gap: spec.gap?.advanced(by: gapPhase),
            layers: spec.layers, noteTrack: spec.noteTrack)
    }
}
