/// The notes a section of a pattern plays over its clicks: one chord per bar (the list cycles through the
/// section's bars), held as a block chord or arpeggiated.
public struct NoteTrack: Sendable, Hashable {
    /// The chords, one per bar in turn (N.C. for a bar of silence).
    public var chords: [ChordSymbol]
    /// The arpeggio order, or nil for block chords (every note on the downbeat, held for `gate` of the bar).
    public var order: ArpeggioOrder?
    /// Step length of the arpeggio.
    public var rate: StepRate = .sixteenth
    /// Octaves an arpeggio spreads over, 1...4.
    public var octaves: Int = 1
    /// Fraction of each step (arpeggio) or of the bar (block chord) a note sounds, 0.05...1.
    public var gate: Double = 0.8

    public init(chords: [ChordSymbol], order: ArpeggioOrder? = nil) {
        self.chords = chords
        self.order = order
    }
}

/// The note track of a whole pattern, lazily: bar by bar, each section's chords as block chords or arpeggios on the
/// map's closed form (a section's swing swings its arpeggio too). Voicing, velocity and seed come from `defaults`.
public struct PatternNotes: NoteSource {
    public let map: TempoMap
    public let defaults: ArpeggioSettings
    public let endFrame: SampleTime?
    private var random: SeededGenerator
    private var bar: Int
    /// Bars after the last one with notes (nil: an endless section with notes).
    private let lastBar: Int?
    private var pending: [NoteEvent] = []

    public init(map: TempoMap, defaults: ArpeggioSettings, endFrame: SampleTime? = nil) {
        self.map = map
        self.defaults = defaults
        self.endFrame = endFrame
        random = SeededGenerator(seed: defaults.seed)
        bar = map.firstBar
        if let last = map.sections.lastIndex(where: { $0.noteTrack != nil }) {
            lastBar = map.sections[last].bars == nil ? nil : map.startBars[last + 1]
        } else {
            lastBar = map.firstBar
        }
    }

    /// Whether the map has any note track.
    public static func hasNotes(_ map: TempoMap) -> Bool { map.sections.contains { $0.noteTrack != nil } }

    public mutating func nextBatch() -> [NoteEvent]? {
        while pending.isEmpty {
            if let lastBar, bar >= lastBar { return nil }
            if let endFrame, let start = map.frame(ofBar: bar), start >= endFrame { return nil }
            guard let index = map.sectionIndex(ofBar: bar) else { return nil }
            defer { bar += 1 }
            let section = map.sections[index]
            guard let track = section.noteTrack, !track.chords.isEmpty, !section.isCountIn else { continue }
            let chord = track.chords[(bar - map.startBars[index]) % track.chords.count]
            let notes = chord.notes(octave: defaults.octave, inversion: defaults.inversion)
            guard !notes.isEmpty else { continue }
            var settings = defaults
            settings.gate = track.gate
            settings.swing = section.swing
            let parts = ArpeggioSequence.parts
            let barParts = Int64(section.meter.beats) * parts
            if let order = track.order {
                let spread = ArpeggioSequence.spread(notes, octaves: track.octaves, asPlayed: order == .asPlayed)
                let stepParts = Int64(track.rate.ticks) * Int64(section.meter.unit)
                let steps = Int(barParts / stepParts)
                let indices = order.indices(size: spread.count, count: max(1, steps), random: &random)
                for step in 0..<steps {
                    if let event = ArpeggioSequence.stepEvent(
                        map: map, bar: bar, position: Int64(step) * stepParts, stepParts: stepParts,
                        note: spread[indices[step]], settings: settings)
                    {
                        pending.append(event)
                    }
                }
                // One note a batch: each step is its own commit.
                pending = pending.filter { event in endFrame.map { event.frame < $0 } ?? true }
                if pending.isEmpty { continue }
                return [pending.removeFirst()]
            }
            settings.swing = nil
            let chordEvents = notes.compactMap { note in
                ArpeggioSequence.stepEvent(
                    map: map, bar: bar, position: 0, stepParts: barParts, note: note, settings: settings,
                    chordSize: notes.count)
            }
            if let endFrame, let first = chordEvents.first, first.frame >= endFrame { return nil }
            return chordEvents
        }
        return [pending.removeFirst()]
    }
}
