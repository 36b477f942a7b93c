/// The notes a section of a pattern plays over its clicks: one chord per bar (the list cycles through the
/// section's bars), held as a block chord or arpeggiated.
public struct NoteTrack: Sendable, Hashable {
    /// Gates accepted: the share of a step (or of a bar, for block chords) a note sounds.
    public static let gateRange = 0.05...1.0

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

    /// Whether any of its chords has notes (a track of N.C. only is silent).
    public var sounds: Bool { chords.contains { $0.content != .noChord } }
}
