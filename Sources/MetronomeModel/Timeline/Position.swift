/// A musical position: ticks since the start of a tempo map (its first section's first beat, count-in included).
///
/// A quarter note is `Position.ticksPerQuarter` ticks, 28,828,800 = 2⁷ · 3² · 5² · 7 · 11 · 13, chosen so that every
/// position the project plays on a straight grid is a whole number of ticks: every subdivision from 1 to 16 of every
/// beat unit from 1 to 32 (triplets, quintuplets, … included), every arpeggio rate (1/4 to 1/32, 1/8T, 1/16T), and
/// swung positions of whole-percent swing amounts (their denominators are 450 and 600). A polyrhythm layer of a
/// count without these factors (17 clicks a bar) lies between ticks: its frame comes from the exact rational
/// position, and its `Position` is the tick before it. The largest position, about 3·10¹¹ quarter notes, is over
/// 600 years at 1000 BPM.
public struct Position: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Ticks per quarter note.
    public static let ticksPerQuarter: Int64 = 28_828_800

    /// Ticks since the map's start.
    public var ticks: Int64

    /// Creates a position from ticks.
    public init(ticks: Int64) { self.ticks = ticks }

    /// The map's first position.
    public static let zero = Position(ticks: 0)

    /// Ticks in one beat of a 1/`unit` note (4 · PPQ / unit).
    /// - Precondition: `unit` is one of `Meter.allowedUnits`.
    public static func ticksPerBeat(unit: Int) -> Int64 { 4 * ticksPerQuarter / Int64(unit) }

    /// Earlier in the map.
    public static func < (lhs: Position, rhs: Position) -> Bool { lhs.ticks < rhs.ticks }

    /// "N ticks".
    public var description: String { "\(ticks) ticks" }
}

/// A whole-number ratio `numerator / denominator` reduced by their greatest common divisor, for closed forms that
/// must divide exactly (the timeline's, and the MIDI layer's tick scales).
package enum Ratio {
    /// Greatest common divisor of two numbers' magnitudes (0 when both are 0).
    /// - Parameters:
    ///   - a: one number.
    ///   - b: the other.
    /// - Returns: the largest number that divides both.
    /// - Complexity: O(log min(|a|, |b|)).
    package static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return Int64(x)
    }

    /// ⌊value · numerator / denominator⌋ without overflow for the sizes positions reach.
    static func scale(_ value: Int64, by numerator: Int64, over denominator: Int64) -> Int64 {
        let whole = value / denominator
        let rest = value % denominator
        let restScaled = rest.multipliedFullWidth(by: numerator)
        let (quotient, remainder) = denominator.dividingFullWidth(restScaled)
        var result = whole * numerator + quotient
        if remainder < 0 { result -= 1 }
        return result
    }
}
