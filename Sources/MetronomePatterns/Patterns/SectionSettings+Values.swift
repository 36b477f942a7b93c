import MetronomeModel

/// The value rules of a section's clauses, shared by the `.metro` parser and by callers that take the values one at
/// a time (the command line), so both accept and refuse the same text with the same reasons. Numbers are written as
/// people write them: digits and one decimal point, no exponent, no hex.
extension SectionSettings {
    /// An additive grouping of a meter's beats: two or more whole numbers from 1 joined by `+`, adding up to the
    /// meter's beats (`2+2+3` for 7/8).
    /// - Parameters:
    ///   - text: the grouping as written.
    ///   - meter: the meter it groups.
    /// - Returns: the group sizes in order.
    /// - Throws: `InvalidValue` for another form, or a sum other than the meter's beats.
    public static func grouping(parsing text: String, for meter: Meter) throws(InvalidValue) -> [Int] {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        var groups: [Int] = []
        for part in parts {
            guard parts.count > 1, let value = Int(part), part.allSatisfy(\.isNumber), value >= 1 else {
                throw InvalidValue(value: text, reason: "a grouping is whole numbers joined by '+', as in 2+2+3")
            }
            groups.append(value)
        }
        var sum = 0
        for value in groups {
            let (next, overflow) = sum.addingReportingOverflow(value)
            guard !overflow else {
                throw InvalidValue(
                    value: text, reason: "the grouping adds up to far more than the \(meter.beats) beats of \(meter)")
            }
            sum = next
        }
        guard sum == meter.beats else {
            throw InvalidValue(
                value: text, reason: "the grouping adds up to \(sum) but \(meter) has \(meter.beats) beats")
        }
        return groups
    }

    /// A swing amount in percent, `50` or `50%`, from 0 to 75 (50 is the triplet feel, 75 the dotted feel).
    /// - Returns: the amount as a fraction, 0...0.75, as `Swing` takes it.
    /// - Throws: `InvalidValue` for anything else.
    public static func swingAmount(parsing text: String) throws(InvalidValue) -> Double {
        let digits = text.hasSuffix("%") ? text.dropLast() : Substring(text)
        guard let percent = ClauseParser.decimal(digits), percent <= Swing.maximumAmount * 100 else {
            throw InvalidValue(
                value: text, reason: "the swing amount is a percentage from 0% to 75% (50% is the triplet feel)")
        }
        return percent / 100
    }

    /// A trainer's step in BPM: `+4`, `-2`, `2.5` (no sign is up); never zero.
    /// - Throws: `InvalidValue` for anything else.
    public static func trainerStep(parsing text: String) throws(InvalidValue) -> Double {
        let signed = text.first == "+" || text.first == "-"
        guard let step = ClauseParser.decimal(Substring(text).dropFirst(signed ? 1 : 0)), step > 0 else {
            throw InvalidValue(value: text, reason: "a trainer step is a number of BPM such as +4 or -2, not zero")
        }
        return text.hasPrefix("-") ? -step : step
    }

    /// A trainer's limit, the tempo it stops at: 1 to 1000.
    /// - Throws: `InvalidValue` for anything else.
    public static func trainerLimit(parsing text: String) throws(InvalidValue) -> Double {
        guard let limit = ClauseParser.decimal(Substring(text)), limit >= 1, limit <= 1000 else {
            throw InvalidValue(value: text, reason: "the trainer's limit is a tempo from 1 to 1000")
        }
        return limit
    }
}
