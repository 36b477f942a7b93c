import MetronomeModel

/// How an arpeggiator plays a progression.
public struct ArpeggioSettings: Sendable, Hashable {
    /// Gate range accepted.
    public static let gateRange = NoteTrack.gateRange

    /// The order the chord's notes are played in.
    public var order: ArpeggioOrder = .up
    /// The step length.
    public var rate: StepRate = .sixteenth
    /// Octaves the chord is spread over, 1...4 (the notes repeated an octave up each time).
    public var octaves: Int = 1
    /// Fraction of each step the note sounds, 0.05...1.
    public var gate: Double = 0.8
    /// Swing of the steps, or nil.
    public var swing: Swing?
    /// Length of each chord: `chordBeats` beats of the meter, or nil for one bar.
    public var chordBeats: Int?
    /// Octave of the chord roots (C4 = 60).
    public var octave: Int = 4
    /// Inversion of every chord (the lowest note moved up an octave this many times).
    public var inversion: Int = 0
    /// MIDI velocity of every note.
    public var velocity: Int = 100
    /// Seed of the random orders.
    public var seed: UInt64 = 1
    /// The track (bank) the notes play on.
    public var track: Int = 0
    /// The bar (in the map's numbering) on which the progression's first chord falls, or nil for the map's first
    /// bar: an arpeggio started while the music plays begins its progression where it joins. Nothing plays before
    /// it.
    public var startBar: Int?

    /// The defaults: up, 1/16, one octave, gate 0.8, a chord a bar, octave 4, velocity 100, seed 1, track 0.
    public init() {}

    /// The settings with every value inside its documented range (octaves 1...4, gate 0.05...1, chord length
    /// 1...64 beats, velocity 1...127, octave −1...9): a sequence made from out-of-range values plays the nearest
    /// valid ones instead of misbehaving.
    public var normalized: ArpeggioSettings {
        var settings = self
        settings.octaves = min(4, max(1, octaves))
        settings.gate =
            gate.isFinite
            ? min(ArpeggioSettings.gateRange.upperBound, max(ArpeggioSettings.gateRange.lowerBound, gate)) : 0.8
        settings.chordBeats = chordBeats.map { min(64, max(1, $0)) }
        settings.velocity = min(127, max(1, velocity))
        settings.octave = min(9, max(-1, octave))
        settings.track = max(0, track)
        return settings
    }
}

/// Lazily turns a progression into arpeggio notes over a tempo map: each chord lasts one bar (or `chordBeats`),
/// its steps start on the chord's downbeat, and the order restarts with every chord (random orders draw on from
/// one seeded generator). The progression loops until the map ends (or the player's end frame). Every onset and note-off is
/// the map's closed form at an exact step position, rounded once; swing moves the steps like the click's.
public struct ArpeggioSequence: NoteSource {
    public let chords: [ChordSymbol]
    public let settings: ArpeggioSettings
    /// The map the steps are placed on (the transport's, once playing).
    public private(set) var map: TempoMap
    private var random: SeededGenerator
    /// Chord slot being played (counts on through loops of the progression).
    private var slot = 0
    private var step = 0
    private var indices: [Int] = []
    /// Whether the current slot's notes and order are drawn.
    private var slotDrawn = false
    private var notes: [Int] = []

    /// - Precondition: `chords` is not empty.
    public init(chords: [ChordSymbol], settings: ArpeggioSettings, map: TempoMap) {
        precondition(!chords.isEmpty)
        self.chords = chords
        self.settings = settings.normalized
        self.map = map
        random = SeededGenerator(seed: settings.seed)
    }

    /// The notes of a chord spread over the octaves: sorted low to high, or as written for `asPlayed`.
    public static func spread(_ chord: [Int], octaves: Int, asPlayed: Bool) -> [Int] {
        let base = asPlayed ? chord : chord.sorted()
        var result: [Int] = []
        for octave in 0..<max(1, octaves) { result += base.map { $0 + 12 * octave }.filter { $0 <= 127 } }
        return asPlayed ? result : result.sorted()
    }

    /// The bar the progression starts on.
    private var origin: Int { max(map.firstBar, settings.startBar ?? map.firstBar) }

    /// Where chord slot `slot` starts: its bar and its first beat (in the meter's beats) within the bar.
    private func start(ofSlot slot: Int) -> (bar: Int, beat: Int64)? {
        guard let beats = settings.chordBeats else { return (origin + slot, 0) }
        // Chords of N beats run on across bars of a steady meter.
        let beatsPerBar = Int64(map.sections[map.sectionIndex(ofBar: origin) ?? 0].meter.beats)
        let total = Int64(slot) * Int64(beats)
        return (origin + Int(total / beatsPerBar), total % beatsPerBar)
    }

    /// Moves to the first step at or after `position`: the chord slot holding it, with its order drawn, and the
    /// step in it. Random orders draw on from the same generator.
    public mutating func seek(to position: Position, on map: TempoMap) {
        self.map = map
        slot = 0
        step = 0
        slotDrawn = false
        guard let firstBar = map.position(ofBar: origin), position > firstBar else { return }
        if let beats = settings.chordBeats {
            let meter = map.sections[map.sectionIndex(ofBar: origin) ?? 0].meter
            let beatTicks = Position.ticksPerBeat(unit: meter.unit)
            slot = Int((position.ticks - firstBar.ticks) / (beatTicks * Int64(beats)))
        } else if let bar = map.barPosition(at: position)?.bar {
            slot = bar - origin
        } else {
            return
        }
        guard let layout = layout(ofSlot: slot) else { return }
        drawSlot(steps: layout.steps)
        while step < layout.steps,
            let at = map.position(
                bar: layout.bar, beat: layout.beat * ArpeggioSequence.parts + Int64(step) * layout.stepParts,
                parts: ArpeggioSequence.parts),
            at < position
        {
            step += 1
        }
    }

    /// Where a chord slot lies and how it is cut into steps, or nil past the map's end.
    private func layout(ofSlot slot: Int) -> (bar: Int, beat: Int64, steps: Int, stepParts: Int64)? {
        guard let (bar, beat) = start(ofSlot: slot), let sectionIndex = map.sectionIndex(ofBar: bar) else {
            return nil
        }
        let section = map.sections[sectionIndex]
        let parts = ArpeggioSequence.parts
        let stepParts = Int64(settings.rate.ticks) * Int64(section.meter.unit)
        let chordParts = settings.chordBeats.map { Int64($0) * parts } ?? Int64(section.meter.beats) * parts
        // A chord shorter than a step still plays one step.
        return (bar, beat, max(1, Int(chordParts / stepParts)), stepParts)
    }

    /// Spreads the slot's chord and draws its order.
    private mutating func drawSlot(steps: Int) {
        let chord = chords[slot % chords.count]
        notes = ArpeggioSequence.spread(
            chord.notes(octave: settings.octave, inversion: settings.inversion), octaves: settings.octaves,
            asPlayed: settings.order == .asPlayed)
        indices = notes.isEmpty ? [] : settings.order.indices(size: notes.count, count: max(1, steps), random: &random)
        slotDrawn = true
    }

    public mutating func nextBatch() -> [NoteEvent]? {
        // A whole pass of the progression without a note (N.C. throughout, or every note above 127) ends it: an
        // endless map must not be walked chord by chord for ever.
        var silentSlots = 0
        while true {
            guard let layout = layout(ofSlot: slot) else { return nil }
            if !slotDrawn { drawSlot(steps: layout.steps) }
            guard step < layout.steps, !notes.isEmpty else {
                if notes.isEmpty { silentSlots += 1 }
                guard silentSlots <= chords.count else { return nil }
                slot += 1
                step = 0
                slotDrawn = false
                continue
            }
            guard
                let event = ArpeggioSequence.stepEvent(
                    map: map, bar: layout.bar,
                    position: layout.beat * ArpeggioSequence.parts + Int64(step) * layout.stepParts,
                    stepParts: layout.stepParts, note: notes[indices[step]], settings: settings)
            else { return nil }
            step += 1
            return [event]
        }
    }

    /// Positions count 1/96 of the meter's beat, so every step rate is a whole number of parts in every meter: a
    /// step of ticks/24 quarter notes is ticks × unit parts.
    public static let parts: Int64 = 96

    /// One step's note: its onset at `position` (parts of a beat from the bar's downbeat) by the map's closed form,
    /// moved by swing, and its note-off at the onset plus the gate's share of the step's own length (exact under a
    /// ramp too).
    static func stepEvent(
        map: TempoMap, bar: Int, position: Int64, stepParts: Int64, note: Int, settings: ArpeggioSettings,
        chordSize: Int = 1
    ) -> NoteEvent? {
        guard let index = map.sectionIndex(ofBar: bar),
            var onset = map.exactFrame(bar: bar, beat: position, parts: parts),
            let next = map.exactFrame(bar: bar, beat: position + stepParts, parts: parts)
        else { return nil }
        let meter = map.sections[index].meter
        let stepFrames = next - onset
        if let swing = settings.swing {
            let inBar = Double(position) / Double(parts)
            let warped = swing.warp(inBar, unit: meter.unit, barBeats: meter.beats)
            if warped != inBar, let swung = map.exactFrame(bar: bar, position: warped) { onset = swung }
        }
        let off = onset + settings.gate * stepFrames
        let frame = SampleTime(onset.rounded(.toNearestOrAwayFromZero))
        var event = NoteEvent(
            frame: frame, offFrame: max(frame + 1, SampleTime(off.rounded(.toNearestOrAwayFromZero))), note: note,
            velocity: settings.velocity, track: settings.track, chordSize: chordSize)
        event.exactFrame = onset
        event.exactOffFrame = max(off, onset + 1)
        event.offPosition = map.position(atExactFrame: event.exactOffFrame)
        event.position = map.position(bar: bar, beat: position, parts: parts) ?? .zero
        return event
    }
}
