/// A time signature n/d: `beats` beats per bar, each a 1/`unit` note.
///
/// Invariant: `beats` is 1...64 and `unit` is one of 1, 2, 4, 8, 16, 32.
public struct Meter: Sendable, Hashable, CustomStringConvertible {
    /// Denominators the model accepts.
    public static let allowedUnits = [1, 2, 4, 8, 16, 32]
    /// Largest numerator accepted.
    public static let maximumBeats = 64

    /// Beats per bar (the numerator).
    public let beats: Int
    /// The note value of one beat (the denominator): 4 for quarter notes, 8 for eighths.
    public let unit: Int

    /// Creates a meter, checking both numbers.
    /// - Throws: `InvalidValue` naming the meter and what is allowed.
    public init(beats: Int, unit: Int) throws(InvalidValue) {
        guard (1...Meter.maximumBeats).contains(beats) else {
            throw InvalidValue(value: "\(beats)/\(unit)", reason: "the number of beats must be from 1 to 64")
        }
        guard Meter.allowedUnits.contains(unit) else {
            throw InvalidValue(value: "\(beats)/\(unit)", reason: "the beat unit must be 1, 2, 4, 8, 16 or 32")
        }
        self.beats = beats
        self.unit = unit
    }

    /// Parses "n/d" ("4/4", "7/8").
    /// - Throws: `InvalidValue` when the text is not two integers separated by "/" or either is out of range.
    public init(parsing text: String) throws(InvalidValue) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let beats = Int(parts[0]), let unit = Int(parts[1]) else {
            throw InvalidValue(value: text, reason: "a meter is written n/d, for example 4/4 or 7/8")
        }
        do { try self.init(beats: beats, unit: unit) } catch { throw InvalidValue(value: text, reason: error.reason) }
    }

    /// Common time.
    public static let fourFour = Meter(unchecked: 4, 4)

    init(unchecked beats: Int, _ unit: Int) {
        self.beats = beats
        self.unit = unit
    }

    /// Length of one beat in quarter notes (1 for x/4, 0.5 for x/8).
    public var quarterNotesPerBeat: Double { 4.0 / Double(unit) }

    public var description: String { "\(beats)/\(unit)" }
}
