import MetronomeModel

/// The note track of a whole pattern, lazily: bar by bar, each section's chords as block chords or arpeggios on the
/// map's closed form (a section's swing swings its arpeggio too). Voicing, velocity and seed come from `defaults`.
/// Where to stop is the player's business (`NotePlayer.push(before:into:endFrame:)`).
public struct PatternNotes: NoteSource {
    /// The map the notes are placed on (the transport's, once playing).
    public private(set) var map: TempoMap
    public let defaults: ArpeggioSettings
    private var random: SeededGenerator
    private var bar: Int
    /// Bars after the last one with notes (nil: an endless section with notes).
    private var lastBar: Int?
    private var pending: [NoteEvent] = []
    /// Notes before this position are skipped (set by `seek`).
    private var floor = Position.zero

    public init(map: TempoMap, defaults: ArpeggioSettings) {
        self.map = map
        self.defaults = defaults
        random = SeededGenerator(seed: defaults.seed)
        bar = map.firstBar
        lastBar = PatternNotes.lastBar(of: map)
    }

    /// Moves to the first note at or after `position` (the rest of its bar is played from there).
    public mutating func seek(to position: Position, on map: TempoMap) {
        self.map = map
        lastBar = PatternNotes.lastBar(of: map)
        pending = []
        floor = position
        bar = max(map.firstBar, map.barPosition(at: position)?.bar ?? map.startBars.last!)
    }

    /// The bar after the last one with notes (nil: an endless section with notes).
    private static func lastBar(of map: TempoMap) -> Int? {
        // Sections whose chords are all N.C. sound nothing: an endless one of them must not be walked bar by bar.
        if let last = map.sections.lastIndex(where: { $0.noteTrack?.sounds == true && !$0.isCountIn }) {
            return map.sections[last].bars == nil ? nil : map.startBars[last + 1]
        }
        return map.firstBar
    }

    /// Whether the map has any note track.
    public static func hasNotes(_ map: TempoMap) -> Bool { map.sections.contains { $0.noteTrack?.sounds == true } }

    public mutating func nextBatch() -> [NoteEvent]? {
        while pending.isEmpty {
            if let lastBar, bar >= lastBar { return nil }
            guard let index = map.sectionIndex(ofBar: bar) else { return nil }
            defer { bar += 1 }
            let section = map.sections[index]
            guard let track = section.noteTrack, !track.chords.isEmpty, !section.isCountIn else { continue }
            let chord = track.chords[(bar - map.startBars[index]) % track.chords.count]
            let notes = chord.notes(octave: defaults.octave, inversion: defaults.inversion)
            guard !notes.isEmpty else { continue }
            var settings = defaults
            settings.gate = track.gate
            settings = settings.normalized
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
                        if event.position >= floor { pending.append(event) }
                    }
                }
                // One note a batch: each step is its own commit.
                if pending.isEmpty { continue }
                return [pending.removeFirst()]
            }
            settings.swing = nil
            let chordEvents = notes.compactMap { note in
                ArpeggioSequence.stepEvent(
                    map: map, bar: bar, position: 0, stepParts: barParts, note: note, settings: settings,
                    chordSize: notes.count)
            }.filter { $0.position >= floor }
            if chordEvents.isEmpty { continue }
            return chordEvents
        }
        return [pending.removeFirst()]
    }
}
