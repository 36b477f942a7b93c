/// One level per beat of a bar.
///
/// Invariant: never empty.
public struct AccentPattern: Sendable, Hashable, CustomStringConvertible {
    /// The levels, beat 1 first.
    public let levels: [BeatLevel]

    /// Creates a pattern from levels.
    /// - Precondition: `levels` is not empty.
    public init(levels: [BeatLevel]) {
        precondition(!levels.isEmpty, "an accent pattern needs at least one beat")
        self.levels = levels
    }

    /// Parses klick-style letters ("X.x.") for a meter, checking the length matches its beats.
    /// - Throws: `InvalidValue` for a wrong length or a letter other than `X`, `x`, `o`, `.`.
    public init(parsing text: String, for meter: Meter) throws(InvalidValue) {
        var levels: [BeatLevel] = []
        for (index, letter) in text.enumerated() {
            guard let level = BeatLevel(letter: letter) else {
                throw InvalidValue(
                    value: text,
                    reason: "letter \(index + 1) '\(letter)' is not one of X (accent), x (normal), o (soft), . (silent)"
                )
            }
            levels.append(level)
        }
        guard levels.count == meter.beats else {
            throw InvalidValue(
                value: text,
                reason:
                    "the pattern has \(levels.count) beat\(levels.count == 1 ? "" : "s") but \(meter) needs \(meter.beats)"
            )
        }
        self.levels = levels
    }

    /// The default: an accent on beat one, normal clicks after it. With a grouping (7/8 as 2+2+3), the grouping
    /// shapes the bar instead: accent on beat one, normal on the first beat of every other group, soft inside the
    /// groups (`XoxoxoO` → `Xoxoxoo`).
    public static func standard(for meter: Meter, groups: [Int]? = nil) -> AccentPattern {
        guard let groups else {
            return AccentPattern(levels: [.accent] + Array(repeating: .normal, count: meter.beats - 1))
        }
        var levels: [BeatLevel] = []
        for group in groups {
            levels.append(levels.isEmpty ? .accent : .normal)
            levels += Array(repeating: .soft, count: group - 1)
        }
        return AccentPattern(levels: levels)
    }

    public var description: String { String(levels.map(\.letter)) }
}
