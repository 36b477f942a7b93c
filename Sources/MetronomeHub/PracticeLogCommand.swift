import Foundation
import MetronomeApp
import MetronomeLog

/// `metronome log` from its typed settings: the practice log read (its schema upgraded if older), its summary or its
/// runs in the format asked for; every bad input one line and its exit code (`CommandLineError`).
public struct PracticeLogCommand {
    /// The file; nil: the default (`PracticeLogLocation`).
    public var file: String?
    /// The first local day of the per-song table and the runs, as the user typed it (YYYY-MM-DD); nil: no bound.
    public var since: String?
    /// The last local day, as `since`.
    public var until: String?
    /// Whether the runs are listed instead of the summary.
    public var runs = false
    /// Text, JSON or CSV.
    public var format: PracticeReport.Format = .text

    /// The default file's summary as text.
    public init() {}

    /// The text to print, ending in a newline.
    /// - Parameters:
    ///   - now: the moment that says which day is today; `timeZone`: the player's.
    ///   - environment: where the default file is found.
    /// - Throws: `CommandLineError`: a date that does not parse or a range that ends before it starts 64, a missing
    ///   file 66, a file that is not a practice log 65 (not a database, a later build's), another failure to open 66.
    public func output(now: Date, timeZone: TimeZone, environment: [String: String]) throws(CommandLineError) -> String
    {
        let first = try day(since, "--since") ?? PracticeDateRange.all.first
        let last = try day(until, "--until") ?? PracticeDateRange.all.last
        if first > last { throw CommandLineError.usage(option: "--since", "\(first) is after --until \(last)") }
        let range = PracticeDateRange(first: first, last: last)
        guard let path = file ?? PracticeLogLocation.defaultPath(environment: environment) else {
            throw CommandLineError(.noInput, "no practice log: set XDG_DATA_HOME or HOME, or give --log-file")
        }
        do throws(PracticeStoreError) {
            let store = try PracticeStore.openForReading(path: path)
            if runs { return PracticeReport.runs(try store.records(in: range), now: now, format: format) }
            let summary = try PracticeSummary.read(store, now: now, timeZone: timeZone, range: range)
            return PracticeReport.summary(summary, format: format)
        } catch {
            throw CommandLineError(error.isMalformed ? .dataError : .noInput, "practice log \(path): \(error)")
        }
    }

    /// `text` as a day, or a usage error naming `option`.
    private func day(_ text: String?, _ option: String) throws(CommandLineError) -> String? {
        guard let text else { return nil }
        guard let day = PracticeDateRange.parseDay(text) else {
            throw CommandLineError.usage(option: option, "\(text): a date is YYYY-MM-DD, as 2026-11-30")
        }
        return day
    }
}
