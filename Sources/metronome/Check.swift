import ArgumentParser
import MetronomeKit

/// `metronome check FILE`: validates a tempo-map file and prints its expanded timeline.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Validate a tempo-map file and print its sections: start bar, start time, meter, tempo, and the total.")

    @Argument(help: "The tempo-map file.")
    var file: String

    func run() throws {
        let map = try PatternFile(path: file).load(sampleRate: .standard)
        print(Check.timeline(of: map))
    }

    /// The table `check` prints.
    static func timeline(of map: TempoMap) -> String {
        let rate = Double(map.sampleRate.framesPerSecond)
        var rows = [["#", "label", "bars", "start bar", "start time", "meter", "tempo"]]
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
                String(map.startBars[index] + 1), clock(map.startFrames[index] / rate), section.meter.description,
                tempo,
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        let lines = rows.map { row in
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column == 1 || column == 6 ? text + padding : padding + text
            }.joined(separator: "  ").trimmingSuffix()
        }
        let bars = map.barCount ?? 0
        let total = "total: \(bars) bar\(bars == 1 ? "" : "s"), \(clock(map.startFrames.last! / rate))"
        return (lines + [total]).joined(separator: "\n")
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
