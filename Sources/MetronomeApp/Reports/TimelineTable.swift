import MetronomeModel
import MetronomeMusic

/// The expanded timeline as a table a person reads, as `metronome check` prints it: what a file plays, section by
/// section.
public enum TimelineTable {
    /// The table: one row per section (number, label, bars, start bar, start time, meter, tempo, clicks), then a
    /// total line (its length, or where an endless map's last section starts).
    /// - Parameter map: the expanded map.
    /// - Returns: the lines, joined by newlines, with no trailing newline.
    /// - Complexity: O(sections).
    public static func text(of map: TempoMap) -> String {
        let rate = Double(map.sampleRate.framesPerSecond)
        var rows = [["#", "label", "bars", "start bar", "start time", "meter", "tempo", "clicks"]]
        for (index, section) in map.sections.enumerated() {
            let tempo: String
            if let beatTempos = section.beatTempos {
                tempo = "\(beatTempos.first!)…\(beatTempos.last!) (per beat)"
            } else if let end = section.endTempo {
                tempo = "\(section.tempo)-\(end)"
            } else {
                tempo = section.tempo.description
            }
            rows.append([
                String(index + 1), section.label ?? "-", section.bars.map(String.init) ?? "∞",
                String(map.startBars[index] + 1), clock(map.startFrames[index] / rate),
                section.meter.description
                    + (section.groups.map { " " + $0.map(String.init).joined(separator: "+") } ?? ""),
                tempo, clicks(of: section),
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        let lines = rows.map { row in
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return [1, 5, 6, 7].contains(column) ? text + padding : padding + text
            }.joined(separator: "  ").trimmingSuffix()
        }
        let total: String
        if let bars = map.barCount {
            total = "total: \(bars) bar\(bars == 1 ? "" : "s"), \(clock(map.startFrames.last! / rate))"
        } else {
            let last = map.sections.count - 1
            let bars = map.startBars[last] - map.firstBar
            total =
                "total: endless; the last section plays forever from bar \(map.startBars[last] + 1) "
                + "(\(bars) bar\(bars == 1 ? "" : "s"), \(clock(map.startFrames[last] / rate)) before it)"
        }
        return (lines + [total]).joined(separator: "\n")
    }

    /// What the section plays besides its tempo and meter: accents, subdivision, swing, volume, gap, layers.
    public static func clicks(of section: TempoSection) -> String {
        var parts = [section.accents.description]
        if section.isCountIn { parts.append("count-in") }
        if section.subdivision > 1 {
            let levels = String(section.subdivisionLevels.map(\.letter))
            parts.append("subdivide \(section.subdivision)" + (levels == "x" ? "" : " " + levels))
        }
        if let swing = section.swing { parts.append(swing.description) }
        if section.volume != 1 { parts.append("volume \(section.volume)") }
        if let gap = section.gap { parts.append(gap.description) }
        parts += section.layers.map(\.description)
        if let track = section.noteTrack {
            var notes = "chords " + track.chords.map(\.text).joined(separator: " ")
            if let order = track.order {
                notes +=
                    " arp \(order.rawValue) \(track.rate.rawValue)"
                    + (track.octaves > 1 ? " octaves \(track.octaves)" : "")
            }
            parts.append(notes + " gate \(track.gate)")
        }
        return parts.joined(separator: ", ")
    }

    /// A time as m:ss.mmm.
    public static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let minutes = milliseconds / 60_000
        let rest = milliseconds % 60_000
        let secondsText = String(rest / 1000)
        let fraction = String(1000 + rest % 1000).dropFirst()
        return "\(minutes):\(secondsText.count == 1 ? "0" : "")\(secondsText).\(fraction)"
    }
}

extension String {
    /// The text without trailing spaces (a table's last column padded).
    func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension TimelineTable {
    /// A length as s.mmm s ("2.000 s", "61.250 s"), to the millisecond.
    /// - Parameter seconds: a length in seconds.
    public static func seconds(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        return "\(milliseconds / 1000).\(String(1000 + milliseconds % 1000).dropFirst()) s"
    }
}
