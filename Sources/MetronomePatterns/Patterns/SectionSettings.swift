import MetronomeModel

/// One section of a pattern given as values instead of `.metro` text: what a single section line can say about its
/// clicks — tempo, meter and its grouping, accents, subdivision, swing, gap practice and a tempo trainer.
///
/// `score()` builds exactly the score a one-section `.metro` file with the same settings gives: the same checks,
/// the same expansion (a trainer split into its steps, each later step keeping the gap cycle in phase), so a caller
/// such as the command line cannot drift from the language. The value rules of the clauses (`grouping(parsing:for:)`,
/// `swingAmount(parsing:)`, `trainerStep(parsing:)`, `trainerLimit(parsing:)`) are the parser's own.
public struct SectionSettings: Sendable, Hashable {
    /// A tempo trainer over bars (`trainer +4 every 2 bars to 160`): the tempo moves by `step` every `everyBars`
    /// bars until it reaches `limit`, and stays there.
    ///
    /// Invariant: `step` is finite and not zero, `everyBars` is 1...`MetroPattern.maximumBars`, `limit` is 1...1000 quarter notes per minute.
    public struct Trainer: Sendable, Hashable {
        /// BPM added at each step; negative slows down.
        public let step: Double
        /// Bars between steps.
        public let everyBars: Int
        /// The tempo the trainer stops at, in quarter notes per minute.
        public let limit: Double

        /// Creates a trainer.
        /// - Throws: `InvalidValue` for a zero or infinite step, fewer than one or more than
        ///   `MetroPattern.maximumBars` bars between steps, or a limit outside 1...1000.
        public init(step: Double, everyBars: Int, limit: Double) throws(InvalidValue) {
            guard step.isFinite, step != 0 else {
                throw InvalidValue(
                    value: String(step), reason: "a trainer step is a number of BPM such as +4 or -2, not zero")
            }
            guard (1...MetroPattern.maximumBars).contains(everyBars) else {
                throw InvalidValue(
                    value: String(everyBars),
                    reason:
                        "the bars between a trainer's steps are a whole number from 1 to \(MetroPattern.maximumBars)")
            }
            guard limit.isFinite, limit >= 1, limit <= 1000 else {
                throw InvalidValue(value: String(limit), reason: "the trainer's limit is a tempo from 1 to 1000")
            }
            self.step = step
            self.everyBars = everyBars
            self.limit = limit
        }

        /// Checks the trainer against the section it climbs in, as the language does.
        /// - Parameters:
        ///   - tempo: the section's tempo, where the trainer starts.
        ///   - bars: the section's bars, or nil when it plays forever.
        /// - Throws: `InvalidValue` when the step points away from the limit (it would never move), or when the
        ///   steps would split the section into more than `MetroPattern.maximumSections` sections.
        public func check(startingAt tempo: BPM, bars: Int?) throws(InvalidValue) {
            let trainer = language
            try trainer.checkMoves(from: tempo.quarterNotesPerMinute)
            let count = trainer.sectionCount(start: tempo.quarterNotesPerMinute, bars: bars, repeats: 1)
            guard count <= MetroPattern.maximumSections else {
                throw InvalidValue(
                    value: ClauseParser.number(step),
                    reason: "the trainer would take more than \(MetroPattern.maximumSections) steps; use a bigger "
                        + "step or fewer bars")
            }
        }

        /// The trainer as the language's tree holds it.
        var language: MetroPattern.Trainer {
            MetroPattern.Trainer(step: step, every: everyBars, perRepeat: false, limit: limit)
        }
    }

    /// Bars of the section, or nil when it plays forever.
    public var bars: Int?
    /// The tempo (where a trainer starts).
    public var tempo: BPM
    /// The time signature.
    public var meter: Meter
    /// How the meter's beats group (`[2, 2, 3]` for 7/8 as 2+2+3), or nil; it shapes the default accents.
    public var groups: [Int]?
    /// One level per beat, or nil for the meter's default (shaped by `groups`).
    public var accents: AccentPattern?
    /// Clicks per beat, 1...16.
    public var subdivision: Int
    /// Swing of eighths or sixteenths, or nil for straight time.
    public var swing: Swing?
    /// Gap practice, or nil to play every bar.
    public var gap: GapPractice?
    /// A tempo trainer, or nil for a steady tempo.
    public var trainer: Trainer?

    /// Creates the settings; the defaults are the language's (4/4, default accents, one click a beat, straight).
    public init(
        tempo: BPM, bars: Int? = nil, meter: Meter = .fourFour, groups: [Int]? = nil, accents: AccentPattern? = nil,
        subdivision: Int = 1, swing: Swing? = nil, gap: GapPractice? = nil, trainer: Trainer? = nil
    ) {
        self.tempo = tempo
        self.bars = bars
        self.meter = meter
        self.groups = groups
        self.accents = accents
        self.subdivision = subdivision
        self.swing = swing
        self.gap = gap
        self.trainer = trainer
    }

    /// The score a `.metro` file holding this one section gives (no count-in; `PatternScore.map` adds one).
    /// - Throws: `InvalidValue` for a bar count below 1, a subdivision outside 1...16, groups or accents that do
    ///   not fit the meter, or a trainer that fails `Trainer.check(startingAt:bars:)`.
    /// - Complexity: O(s), s the sections a trainer splits the section into.
    public func score() throws(InvalidValue) -> PatternScore {
        try trainer?.check(startingAt: tempo, bars: bars)
        let spec = MetroPattern.SectionSpec(
            label: nil, bars: bars, repeats: 1, tempo: .constant(tempo.quarterNotesPerMinute), meter: meter,
            groups: groups, accents: accents, subdivision: subdivision, subdivisionLevels: [.normal], swing: swing,
            volume: 1, gap: gap, layers: [], noteTrack: nil, trainer: trainer?.language)
        let pattern = MetroPattern(items: [.section(spec)], countInBars: 0, sound: nil, instrument: nil, summary: nil)
        return try pattern.score()
    }
}
