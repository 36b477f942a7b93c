import MetronomeModel

/// The division of an exported MIDI file and the conversion of positions to its ticks (`MIDIExport`).
///
/// Invariant: `ticksPerQuarter` is 960 × k, k a divisor of 30,030, at most 32,767, so it divides
/// `Position.ticksPerQuarter` and every tick is a whole number of positions.
struct MIDIExportScale {
    /// The file's division.
    let ticksPerQuarter: Int64
    /// Positions per file tick.
    let positionsPerTick: Int64

    /// The divisions tried, fewest ticks first: 960 × each divisor of 30,030 (= 28,828,800 / 960) up to 32,767.
    static let candidates: [Int64] = (1...34).filter { 30_030 % $0 == 0 }.map { MIDIExport.baseTicksPerQuarter * $0 }

    /// The fewest ticks per quarter note on which every onset (in positions) falls exactly, else 960.
    /// - Complexity: O(n · 16), n the onsets.
    init(onsets: [Int64]) {
        let chosen = MIDIExportScale.candidates.first { ticks in
            let step = Position.ticksPerQuarter / ticks
            return onsets.allSatisfy { $0 % step == 0 }
        }
        ticksPerQuarter = chosen ?? MIDIExport.baseTicksPerQuarter
        positionsPerTick = Position.ticksPerQuarter / ticksPerQuarter
    }

    /// The nearest file tick to a position ≥ 0 (halves round up).
    func tick(_ position: Int64) -> Int64 { (position + positionsPerTick / 2) / positionsPerTick }

    /// The position of a file tick.
    func position(_ tick: Int64) -> Position { Position(ticks: tick * positionsPerTick) }
}
