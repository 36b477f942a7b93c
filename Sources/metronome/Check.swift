import ArgumentParser
import MetronomeKit

/// `metronome check FILE`: validates a tempo-map file and prints its expanded timeline, as `play` with the same
/// options would play it.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Validate a pattern file and print its expanded sections: start bar, start time, meter, tempo, and the "
            + "total.",
        discussion: """
            Takes play's --bpm, --tempo-scale, --start-at, --count-in and --subdivide and prints what play does with \
            them: 'metronome check song --bpm 100' shows the timeline 'metronome play song --bpm 100' plays. The \
            other options of play do not change the timeline and are refused.
            """)

    /// The options that change the timeline; `check` takes them as `play` does.
    static let timelineOptions: Set<String> = ["--bpm", "--count-in", "--subdivide"]

    @Argument(help: "A pattern file (.metro or a klick tempo map), or the name of a shipped pattern.")
    var file: String

    @Option(
        name: .customLong("start-at"),
        help: "Start at this label (of a section or a repeat) or bar number (from 1), as play does.")
    var startAt: String?

    @Option(
        name: .customLong("tempo-scale"), parsing: .unconditional,
        help: "Multiply every tempo by this factor, 0.1 to 10, as play does.")
    var tempoScale: String?

    /// `--bpm`, `--count-in` and `--subdivide` apply as in `play`; the rest of the main command's options are
    /// refused.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(
            in: "check", except: Check.timelineOptions,
            note: "it takes --bpm, --tempo-scale, --start-at, --count-in and --subdivide, as play does")
        // play's own path, so the table is what play plays.
        let request = PatternRequest(file: PatternFile(resolving: file), startAt: startAt, tempoScale: tempoScale)
        print(Check.timeline(of: try root.click.plan(root.output, pattern: request, section: root.section).map))
    }

    /// The table `check` prints.
    static func timeline(of map: TempoMap) -> String {
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
    static func clicks(of section: TempoSection) -> String {
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

    /// m:ss.mmm
    static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let minutes = milliseconds / 60_000
        let rest = milliseconds % 60_000
        let secondsText = String(rest / 1000)
        let fraction = String(1000 + rest % 1000).dropFirst()
        return "\(minutes):\(secondsText.count == 1 ? "0" : "")\(secondsText).\(fraction)"
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
