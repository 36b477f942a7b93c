import Foundation

/// What `metronome log` prints: the time practised today and this week (ISO week, Monday first, in the player's
/// time zone), and per song or pattern the time practised, the runs and the highest tempo reached.
///
/// Threads: a value; any thread.
public struct PracticeSummary: Sendable, Equatable, Codable {
    /// A period's total.
    public struct Period: Sendable, Equatable, Codable {
        /// Its days.
        public var dates: PracticeDateRange
        /// Seconds played, runs, and the highest tempo heard in them.
        public var total: PracticeTotal
    }

    /// Today.
    public var today: Period
    /// This week, Monday to Sunday.
    public var week: Period
    /// The days the per-song table covers (`--since`, `--until`; every day by default).
    public var range: PracticeDateRange
    /// Per song or pattern, the most practised first.
    public var pieces: [PracticeTotal]

    /// Reads the summary from `store`.
    /// - Parameters:
    ///   - now: the moment that says which day is today.
    ///   - timeZone: the player's.
    ///   - range: the days of the per-song table.
    /// - Complexity: three indexed queries; SQLite's GROUP BY over the runs in `range`.
    /// - Throws: `PracticeStoreError`.
    public static func read(
        _ store: PracticeStore, now: Date, timeZone: TimeZone, range: PracticeDateRange = .all
    ) throws(PracticeStoreError) -> PracticeSummary {
        let today = PracticeDateRange.today(now, in: timeZone)
        let week = PracticeDateRange.week(now, in: timeZone)
        return PracticeSummary(
            today: Period(dates: today, total: try store.total(in: today)),
            week: Period(dates: week, total: try store.total(in: week)), range: range,
            pieces: try store.pieces(in: range))
    }
}
