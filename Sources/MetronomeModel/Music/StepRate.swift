/// Step lengths an arpeggiator plays.
public enum StepRate: String, CaseIterable, Sendable {
    case quarter = "1/4"
    case eighth = "1/8"
    case eighthTriplet = "1/8T"
    case sixteenth = "1/16"
    case sixteenthTriplet = "1/16T"
    case thirtySecond = "1/32"

    /// Length in 1/24 of a quarter note (so every rate is a whole number: 24, 12, 8, 6, 4, 3).
    public var ticks: Int {
        switch self {
        case .quarter: 24
        case .eighth: 12
        case .eighthTriplet: 8
        case .sixteenth: 6
        case .sixteenthTriplet: 4
        case .thirtySecond: 3
        }
    }
}
