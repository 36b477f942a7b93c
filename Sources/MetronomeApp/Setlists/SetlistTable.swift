import MetronomeModel
import MetronomePatterns

/// A checked setlist as `metronome check` prints it: a heading, one row per song, a total.
public enum SetlistTable {
    /// The table: `TITLE: N songs` (the file's name when the set has no title); a row per song (number, title,
    /// source as written, first tempo, meter, bars, length with the count-in, count-in bars, what follows, how a
    /// switch lands); `total: N songs, M:SS.mmm played` with `, K endless` when some songs play without end (the gaps
    /// between songs are not counted).
    /// - Parameter plan: the checked set.
    /// - Returns: the lines, joined by newlines, with no trailing newline.
    /// - Complexity: O(songs).
    public static func text(of plan: SetlistPlan) -> String {
        var rows = [["#", "title", "source", "tempo", "meter", "bars", "length", "count-in", "then", "switch"]]
        var total = 0.0
        var endless = 0
        for (index, entry) in plan.songs.enumerated() {
            let section = entry.firstSection
            if let seconds = entry.seconds { total += seconds } else { endless += 1 }
            rows.append([
                String(index + 1), entry.song.title, entry.song.sourceText, entry.firstTempo.description,
                section.meter.description, entry.plan.bars.map(String.init) ?? "∞",
                entry.seconds.map(TimelineTable.clock) ?? "endless", String(entry.plan.map.countInBars),
                entry.song.advance.description, entry.song.landing.rawValue,
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        let lines = rows.map { row in
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return [0, 3, 5, 7].contains(column) ? padding + text : text + padding
            }.joined(separator: "  ").trimmingSuffix()
        }
        let count = plan.songs.count
        let heading = "\(plan.title ?? plan.path): \(count) song\(count == 1 ? "" : "s")"
        let footer =
            "total: \(count) song\(count == 1 ? "" : "s"), \(TimelineTable.clock(total)) played"
            + (endless > 0 ? ", \(endless) endless" : "")
        return ([heading] + lines + [footer]).joined(separator: "\n")
    }
}
