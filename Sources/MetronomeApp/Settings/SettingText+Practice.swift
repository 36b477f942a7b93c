import MetronomeModel

extension SettingText {
    /// The longest practice timer: 24 hours, in seconds.
    public static let longestPractice: Seconds = 86_400

    /// `--practice`: hours, minutes and seconds with their units, in that order, each at most once, each a number
    /// (`20m`, `90s`, `1h30m`, `1.5m`), from 1 s to 24 h.
    public static func practiceDuration(_ text: String) throws(InvalidValue) -> Seconds {
        let reason =
            "the practice time is hours, minutes and seconds with their units (20m, 90s, 1h30m, 1.5m), from 1s to 24h"
        var total: Seconds = 0
        var number = ""
        var units: [Character] = []
        for character in text {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let order: [Character] = ["h", "m", "s"]
            guard let unit = order.firstIndex(of: character), let value = Double(number), value.isFinite,
                units.last.map({ order.firstIndex(of: $0)! < unit }) ?? true
            else { throw InvalidValue(value: text, reason: reason) }
            total += value * [3600, 60, 1][unit]
            units.append(character)
            number = ""
        }
        guard number.isEmpty, !units.isEmpty, total >= 1, total <= longestPractice else {
            throw InvalidValue(value: text, reason: reason)
        }
        return total
    }

    /// `--random-mute`: the chance that a bar is muted, a fraction (`0.25`) or a percentage (`25%`), more than 0 and
    /// less than 1 (100%).
    public static func muteProbability(_ text: String) throws(InvalidValue) -> Double {
        let reason = "the random mute is a chance between 0 and 1 (0.25) or a percentage between 0% and 100% (25%)"
        let percent = text.hasSuffix("%")
        guard let value = Double(percent ? String(text.dropLast()) : text), value.isFinite,
            !text.hasPrefix("+"), text.allSatisfy({ $0.isASCII })
        else { throw InvalidValue(value: text, reason: reason) }
        let probability = percent ? value / 100 : value
        guard probability > 0, probability < 1 else { throw InvalidValue(value: text, reason: reason) }
        return probability
    }
}
