/// One section of a tempo map: a number of bars in one meter, at a constant tempo or one ramped linearly.
///
/// A ramp follows klick's semantics: the tempo moves linearly with the *beat position* from `tempo` at the first beat
/// to `endTempo` at the end of the section's last beat (the first beat of the next section). The time of beat
/// position x (0 ≤ x ≤ N, N the section's beats) is therefore the closed form
///
///     t(x) = 240 · N / (d · (T₁ − T₀)) · ln(1 + (T₁ − T₀) · x / (N · T₀))
///
/// with d the meter's unit and tempos in quarter notes per minute; a constant tempo gives t(x) = 240 · x / (d · T).
/// A tempo per beat (klick's `t1,t2,…` lists) is piecewise constant: t(x) is the sum of the whole beats before x,
/// each 240/(d·Tᵢ), plus the fraction of beat ⌊x⌋ — the sums are formed once, when the section is made.
///
/// Invariant: `bars` is nil (endless) or ≥ 1; a ramp needs a finite bar count; `subdivision` is 1...16;
/// `volume` is 0...1.
public struct TempoSection: Sendable, Hashable {
    /// Largest subdivision accepted (clicks per beat).
    public static let maximumSubdivision = 16

    /// An optional name (for `--start-at` and status lines).
    public package(set) var label: String?
    /// Bar count, or nil for a section that never ends (only the last section of a map).
    public package(set) var bars: Int?
    /// The time signature.
    public package(set) var meter: Meter
    /// Tempo at the section's first beat.
    public package(set) var tempo: BPM
    /// Tempo reached at the section's end, or nil for a constant tempo.
    public package(set) var endTempo: BPM?
    /// One level per beat.
    public package(set) var accents: AccentPattern
    /// Clicks per beat: 1 plays only the beats, 2 adds the off-beat eighths in 4/4, 3 triplets, …
    public package(set) var subdivision: Int
    /// Levels of the subdivision clicks between beats, used in turn: click i (1..<subdivision) of a beat plays
    /// `subdivisionLevels[(i − 1) % count]`. One entry gives every subdivision the same level; `[.silent, .normal]`
    /// with 3 clicks per beat is a shuffle.
    public package(set) var subdivisionLevels: [BeatLevel]
    /// How the meter's beats group into felt beats (7/8 as 2+2+3, 6/8 as 3+3), or nil. The grouping only shapes
    /// the default accents and what `check` shows; clicks stay on the meter's beats.
    public package(set) var groups: [Int]?
    /// Swing of the section's eighths or sixteenths, or nil for straight time.
    public package(set) var swing: Swing?
    /// Gap practice: bars played, then bars muted, repeating; nil plays every bar.
    public package(set) var gap: GapPractice?
    /// Polyrhythm layers played over every bar with sounds of their own.
    public package(set) var layers: [PolyLayer]
    /// The chords (block or arpeggiated) the section plays over its clicks, or nil.
    public package(set) var noteTrack: NoteTrack?
    /// Linear gain of the whole section, 0...1 (klick's per-entry volume).
    public package(set) var volume: Float
    /// One tempo per beat of the section (klick's `t1,t2,…`), or nil. When set, `tempo` is the first of them and
    /// `endTempo` is nil.
    public private(set) var beatTempos: [BPM]?

    /// Whether the section is a count-in before the music (played with the count-in sound, bars numbered below 0).
    public package(set) var isCountIn: Bool

    /// Creates a section.
    /// - Throws: `InvalidValue` for a bar count below 1, a ramp without a bar count, a subdivision outside 1...16,
    ///   an accent pattern whose length differs from the meter's beats, or a volume outside 0...1.
    public init(
        label: String? = nil, bars: Int?, meter: Meter = .fourFour, tempo: BPM, endTempo: BPM? = nil,
        accents: AccentPattern? = nil, subdivision: Int = 1, subdivisionLevels: [BeatLevel] = [.normal],
        volume: Float = 1, groups: [Int]? = nil, swing: Swing? = nil, gap: GapPractice? = nil,
        layers: [PolyLayer] = [], noteTrack: NoteTrack? = nil, isCountIn: Bool = false
    ) throws(InvalidValue) {
        if let bars, bars < 1 {
            throw InvalidValue(value: String(bars), reason: "the number of bars must be at least 1")
        }
        if endTempo != nil, bars == nil {
            throw InvalidValue(value: "\(tempo)-\(endTempo!)", reason: "a tempo ramp needs a number of bars")
        }
        guard (1...TempoSection.maximumSubdivision).contains(subdivision) else {
            throw InvalidValue(value: String(subdivision), reason: "subdivision must be from 1 to 16 clicks per beat")
        }
        if let groups {
            guard groups.allSatisfy({ $0 >= 1 }), groups.reduce(0, +) == meter.beats else {
                throw InvalidValue(
                    value: groups.map(String.init).joined(separator: "+"),
                    reason: "the groups add up to \(groups.reduce(0, +)) but \(meter) has \(meter.beats) beats")
            }
        }
        guard !subdivisionLevels.isEmpty else {
            throw InvalidValue(value: "", reason: "a subdivision needs at least one level")
        }
        let accents = accents ?? .standard(for: meter, groups: groups)
        guard accents.levels.count == meter.beats else {
            throw InvalidValue(
                value: accents.description,
                reason: "the pattern has \(accents.levels.count) beats but \(meter) needs \(meter.beats)")
        }
        guard volume.isFinite, (0...1).contains(volume) else {
            throw InvalidValue(value: String(volume), reason: "volume must be from 0 to 1")
        }
        self.label = label
        self.bars = bars
        self.meter = meter
        self.tempo = tempo
        self.endTempo = endTempo == tempo ? nil : endTempo
        self.accents = accents
        self.subdivision = subdivision
        self.subdivisionLevels = subdivisionLevels
        self.volume = volume
        self.groups = groups
        self.swing = swing
        self.gap = gap
        self.layers = layers
        self.noteTrack = noteTrack
        self.isCountIn = isCountIn
    }

    /// Creates a section with one tempo per beat (klick's `bars meter t1,t2,…` entries).
    /// - Throws: `InvalidValue` when the count of tempos is not bars × beats, or as the main initialiser.
    public init(
        label: String? = nil, bars: Int, meter: Meter = .fourFour, beatTempos: [BPM], accents: AccentPattern? = nil,
        subdivision: Int = 1, volume: Float = 1
    ) throws(InvalidValue) {
        let (needed, overflow) = bars.multipliedReportingOverflow(by: meter.beats)
        guard !overflow, beatTempos.count == needed, let first = beatTempos.first else {
            let count = overflow ? "more than \(Int.max)" : String(needed)
            throw InvalidValue(
                value: String(beatTempos.count),
                reason:
                    "a tempo per beat needs \(count) tempos (\(bars) bar\(bars == 1 ? "" : "s") of \(meter.beats) beats)"
            )
        }
        try self.init(
            label: label, bars: bars, meter: meter, tempo: first, accents: accents, subdivision: subdivision,
            volume: volume)
        self.beatTempos = beatTempos
    }

    /// The level of subdivision click `index` (1..<subdivision) of a beat.
    public func level(ofSubdivision index: Int) -> BeatLevel {
        subdivisionLevels[(index - 1) % subdivisionLevels.count]
    }

    /// Beats in the section, or nil when endless.
    public var beatCount: Int64? { bars.map { Int64($0) * Int64(meter.beats) } }

    /// The exact (unrounded) frame offset from the section's start of the beat position `numerator / parts`: the
    /// closed form of the section's own tempo (`tempoShape`), as its first tempo segment computes it in a map.
    /// - Parameters:
    ///   - numerator: beat position times `parts` (beat 3, second of four subdivisions: 3 · 4 + 1).
    ///   - parts: subdivisions per beat the numerator counts in.
    ///   - sampleRate: output frames per second.
    /// - Returns: fractional frames since the section's first beat.
    /// - Complexity: O(1) (a per-beat section sums its beats first, O(beats)).
    public func exactFrames(atBeat numerator: Int64, parts: Int64, sampleRate: Double) -> Double {
        let length = beatCount.map { $0 * Position.ticksPerBeat(unit: meter.unit) }
        return TempoSegment(start: .zero, length: length, unit: meter.unit, shape: tempoShape)
            .frames(atBeat: numerator, parts: parts, rate: sampleRate)
    }

    /// The same section from bar `bars` on: a ramp continues on the same line (from the tempo it had reached),
    /// a tempo-per-beat list loses its first bars, and gap practice keeps its cycle.
    /// - Precondition: 0 ≤ `bars` < the section's bar count (any value ≥ 0 when endless).
    public func dropping(bars dropped: Int) -> TempoSection {
        guard dropped > 0 else { return self }
        var rest = self
        let droppedBeats = dropped * meter.beats
        rest.bars = bars.map { $0 - dropped }
        rest.gap = gap?.advanced(by: dropped)
        if var track = noteTrack, !track.chords.isEmpty {
            // The chord cycle goes on where the cut leaves it.
            let shift = dropped % track.chords.count
            track.chords = Array(track.chords[shift...] + track.chords[..<shift])
            rest.noteTrack = track
        }
        if let beatTempos {
            rest.beatTempos = Array(beatTempos[droppedBeats...])
            rest.tempo = rest.beatTempos![0]
        } else if endTempo != nil, let reached = try? BPM(self.tempo(atBeat: Double(droppedBeats))) {
            rest.tempo = reached
        }
        return rest
    }

    /// Keeps only the first `bars` bars (a section split by a live edit; the tempo track keeps the timing).
    mutating func truncate(toBars bars: Int) {
        self.bars = bars
        if let beatTempos { self.beatTempos = Array(beatTempos.prefix(bars * meter.beats)) }
    }

    /// Applies a live click change; a new meter resets the grouping (and the accents given with it).
    mutating func change(meter: Meter, accents: AccentPattern, subdivision: Int?, swing: Swing??) {
        if meter != self.meter {
            groups = nil
            beatTempos = nil
            endTempo = nil
        }
        self.meter = meter
        self.accents = accents
        if let subdivision { self.subdivision = subdivision }
        if let swing { self.swing = swing }
    }

    /// Tempo at a beat position of the section (for status lines and `check` output).
    /// - Parameter beat: beat position from the section's start, 0...beatCount.
    public func tempo(atBeat beat: Double) -> Double {
        if let beatTempos { return beatTempos[min(beatTempos.count - 1, max(0, Int(beat)))].quarterNotesPerMinute }
        guard let endTempo, let beats = beatCount else { return tempo.quarterNotesPerMinute }
        let start = tempo.quarterNotesPerMinute
        return start + (endTempo.quarterNotesPerMinute - start) * beat / Double(beats)
    }
}
