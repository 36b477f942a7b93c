import Foundation

/// The practice log as text for a person, JSON or CSV for a script (`metronome log`, `--json`, `--csv`).
///
/// Threads: pure functions; any thread.
public enum PracticeReport {
    /// The output formats.
    public enum Format: Sendable {
        /// Aligned columns for a person.
        case text
        /// One JSON value, pretty-printed, keys sorted.
        case json
        /// RFC 4180 CSV with a header line.
        case csv
    }

    /// The summary in `format`, ending in a newline.
    public static func summary(_ summary: PracticeSummary, format: Format) -> String {
        switch format {
        case .text: text(summary)
        case .json: json(SummaryJSON(summary))
        case .csv: csv(summary)
        }
    }

    /// The runs in `format`, ending in a newline; a run's ending as it reads at `now` (`PracticeRecord.ending(at:)`).
    public static func runs(_ records: [PracticeRecord], now: Date, format: Format) -> String {
        let seconds = now.timeIntervalSince1970
        switch format {
        case .text: return runsText(records, now: seconds)
        case .json: return json(records.map { RunJSON($0, now: seconds) })
        case .csv:
            let header =
                "id,started_utc,local_date,what,setlist_song,setlist_path,lowest_bpm,highest_bpm,meters,sound,seconds,ending"
            let rows = records.map { record in
                [
                    record.id.map(String.init) ?? "", utc(record.startedAt), record.localDate, record.what,
                    record.setlistSong ?? "", record.setlistPath ?? "", record.lowestTempo.map(tempo) ?? "",
                    record.highestTempo.map(tempo) ?? "", record.meters, record.sound, tenths(record.seconds),
                    record.ending(at: seconds).rawValue,
                ].map(csvField).joined(separator: ",")
            }
            return ([header] + rows).map { $0 + "\n" }.joined()
        }
    }

    /// `1:05:12` (hours, minutes, seconds; rounded to the second).
    public static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }

    /// A tempo as written: `120`, `132.5`.
    public static func tempo(_ bpm: Double) -> String {
        let rounded = (bpm * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func text(_ summary: PracticeSummary) -> String {
        func period(_ name: String, _ period: PracticeSummary.Period) -> String {
            let days =
                period.dates.first == period.dates.last
                ? period.dates.first : "\(period.dates.first) to \(period.dates.last)"
            let runs = period.total.runs == 1 ? "1 run" : "\(period.total.runs) runs"
            let highest = period.total.highestTempo.map { ", highest tempo \(tempo($0))" } ?? ""
            return "\(name) (\(days)): \(clock(period.total.seconds)) in \(runs)\(highest)\n"
        }
        var text = period("today", summary.today) + period("this week", summary.week)
        let (first, last) = (summary.range.first, summary.range.last)
        let range: String =
            switch (first == PracticeDateRange.all.first, last == PracticeDateRange.all.last) {
            case (true, true): "every day"
            case (false, true): "from \(first)"
            case (true, false): "until \(last)"
            case (false, false): "\(first) to \(last)"
            }
        text += "per song or pattern, \(range):\n"
        guard !summary.pieces.isEmpty else { return text + "  no runs\n" }
        let rows = summary.pieces.map { piece in
            [clock(piece.seconds), String(piece.runs), piece.highestTempo.map(tempo) ?? "-", piece.piece]
        }
        return text + table(header: ["time", "runs", "highest", "what"], rows: rows, rightAligned: 3)
    }

    private static func runsText(_ records: [PracticeRecord], now: Double) -> String {
        guard !records.isEmpty else { return "no runs\n" }
        let rows = records.map { record in
            let range: String =
                switch (record.lowestTempo, record.highestTempo) {
                case (let low?, let high?) where low != high: "\(tempo(low))-\(tempo(high))"
                case (_, let high?): tempo(high)
                default: "-"
                }
            return [
                local(record.startedAt, offset: record.utcOffset), clock(record.seconds), range,
                record.meters.isEmpty ? "-" : record.meters, record.ending(at: now).rawValue, record.sound,
                record.setlistSong.map { "\($0) (\(record.what))" } ?? record.what,
            ]
        }
        return table(
            header: ["started", "time", "tempo", "meters", "ending", "sound", "what"], rows: rows, rightAligned: 3)
    }

    /// Columns padded to their widest cell, the first `rightAligned` to the right; the last never padded.
    private static func table(header: [String], rows: [[String]], rightAligned: Int) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                if column == row.count - 1 { return cell }
                return column < rightAligned ? pad + cell : cell + pad
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    private static func csv(_ summary: PracticeSummary) -> String {
        var lines = ["scope,first_date,last_date,what,seconds,runs,highest_bpm"]
        func line(_ scope: String, _ dates: PracticeDateRange, _ total: PracticeTotal) {
            lines.append(
                [
                    scope, dates.first, dates.last, total.piece, tenths(total.seconds), String(total.runs),
                    total.highestTempo.map(tempo) ?? "",
                ].map(csvField).joined(separator: ","))
        }
        line("today", summary.today.dates, summary.today.total)
        line("week", summary.week.dates, summary.week.total)
        for piece in summary.pieces { line("piece", summary.range, piece) }
        return lines.map { $0 + "\n" }.joined()
    }

    /// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
    static func csvField(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func tenths(_ seconds: Double) -> String {
        let rounded = (seconds * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `2026-11-30T21:04:05Z`.
    private static func utc(_ seconds: Double) -> String {
        local(seconds, offset: 0, separator: "T", seconds: true) + "Z"
    }

    /// The local time of `seconds` at `offset` seconds east of UTC: `2026-11-30 21:04`.
    private static func local(
        _ seconds: Double, offset: Int, separator: String = " ", seconds withSeconds: Bool = false
    )
        -> String
    {
        let zone = TimeZone(secondsFromGMT: offset) ?? TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: seconds)
        let calendar = PracticeDateRange.calendar(zone)
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        func two(_ number: Int?) -> String { (number ?? 0) < 10 ? "0\(number ?? 0)" : "\(number ?? 0)" }
        let time = "\(two(parts.hour)):\(two(parts.minute))" + (withSeconds ? ":\(two(parts.second))" : "")
        return PracticeDateRange.day(of: date, in: zone) + separator + time
    }

    private struct PeriodJSON: Encodable {
        var firstDate: String
        var lastDate: String
        var seconds: Double
        var runs: Int
        var highestBpm: Double?

        init(_ dates: PracticeDateRange, _ total: PracticeTotal) {
            (firstDate, lastDate) = (dates.first, dates.last)
            (seconds, runs, highestBpm) = ((total.seconds * 10).rounded() / 10, total.runs, total.highestTempo)
        }
    }

    private struct PieceJSON: Encodable {
        var what: String
        var seconds: Double
        var runs: Int
        var highestBpm: Double?
    }

    private struct SummaryJSON: Encodable {
        var today: PeriodJSON
        var week: PeriodJSON
        var pieces: [PieceJSON]
        var piecesFirstDate: String?
        var piecesLastDate: String?

        init(_ summary: PracticeSummary) {
            today = PeriodJSON(summary.today.dates, summary.today.total)
            week = PeriodJSON(summary.week.dates, summary.week.total)
            pieces = summary.pieces.map {
                PieceJSON(
                    what: $0.piece, seconds: ($0.seconds * 10).rounded() / 10, runs: $0.runs,
                    highestBpm: $0.highestTempo
                )
            }
            piecesFirstDate = summary.range.first == PracticeDateRange.all.first ? nil : summary.range.first
            piecesLastDate = summary.range.last == PracticeDateRange.all.last ? nil : summary.range.last
        }
    }

    private struct RunJSON: Encodable {
        var id: Int64?
        var startedUtc: String
        var localDate: String
        var utcOffset: Int
        var what: String
        var setlistSong: String?
        var setlistPath: String?
        var lowestBpm: Double?
        var highestBpm: Double?
        var meters: String
        var sound: String
        var seconds: Double
        var ending: String

        init(_ record: PracticeRecord, now: Double) {
            (id, startedUtc, localDate, utcOffset) = (
                record.id, utc(record.startedAt), record.localDate, record.utcOffset
            )
            (what, setlistSong, setlistPath) = (record.what, record.setlistSong, record.setlistPath)
            (lowestBpm, highestBpm, meters, sound) = (
                record.lowestTempo, record.highestTempo, record.meters, record.sound
            )
            seconds = (record.seconds * 10).rounded() / 10
            ending = record.ending(at: now).rawValue
        }
    }
}
