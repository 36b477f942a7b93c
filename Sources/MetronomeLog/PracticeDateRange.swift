import Foundation

/// Local dates from `first` to `last`, both included, as `YYYY-MM-DD` (which sort as the days do).
///
/// Threads: a value; any thread.
public struct PracticeDateRange: Sendable, Equatable, Codable {
    /// The first day.
    public var first: String
    /// The last day.
    public var last: String

    /// Every day.
    public static let all = PracticeDateRange(first: "0000-01-01", last: "9999-12-31")

    /// The days from `first` to `last`.
    public init(first: String, last: String) {
        self.first = first
        self.last = last
    }

    /// The day `date` falls on in `timeZone`, `YYYY-MM-DD`.
    public static func day(of date: Date, in timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.year, .month, .day], from: date)
        return text(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// The day `now` falls on in `timeZone`.
    public static func today(_ now: Date, in timeZone: TimeZone) -> PracticeDateRange {
        let day = day(of: now, in: timeZone)
        return PracticeDateRange(first: day, last: day)
    }

    /// The ISO week (Monday to Sunday) `now` falls in, in `timeZone`.
    public static func week(_ now: Date, in timeZone: TimeZone) -> PracticeDateRange {
        let calendar = calendar(timeZone)
        let start = calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? now
        // Noon of the Monday, six days on: a day with a daylight-saving change is still one day.
        let noon = calendar.date(byAdding: .hour, value: 12, to: start) ?? start
        let sunday = calendar.date(byAdding: .day, value: 6, to: noon) ?? noon
        return PracticeDateRange(first: day(of: start, in: timeZone), last: day(of: sunday, in: timeZone))
    }

    /// `text` as a day, when it is one: exactly `YYYY-MM-DD`, a date that exists (no 2026-02-30).
    public static func parseDay(_ text: String) -> String? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        let calendar = calendar(TimeZone(identifier: "UTC")!)
        let components = DateComponents(year: year, month: month, day: day, hour: 12)
        guard (1...12).contains(month), (1...31).contains(day), let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date)
                == DateComponents(year: year, month: month, day: day)
        else { return nil }
        return text
    }

    /// The ISO 8601 calendar (weeks from Monday) in `timeZone`.
    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }

    private static func text(year: Int, month: Int, day: Int) -> String {
        func padded(_ number: Int, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }
}
