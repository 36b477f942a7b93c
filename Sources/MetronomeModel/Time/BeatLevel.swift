/// How loudly a beat or subdivision sounds.
public enum BeatLevel: UInt8, Sendable, Hashable, CaseIterable {
    /// Not played at all; the grid goes on.
    case silent
    /// The normal sound at half amplitude (−6 dB): a ghost click.
    case soft
    /// The normal sound.
    case normal
    /// The accent sound.
    case accent

    /// The letter used in accent patterns: `X` accent, `x` normal, `o` soft, `.` silent (klick's letters plus `o`).
    public var letter: Character {
        switch self {
        case .accent: "X"
        case .normal: "x"
        case .soft: "o"
        case .silent: "."
        }
    }

    /// The level a pattern letter stands for, or nil for any other character.
    public init?(letter: Character) {
        switch letter {
        case "X": self = .accent
        case "x": self = .normal
        case "o": self = .soft
        case ".": self = .silent
        default: return nil
        }
    }
}
