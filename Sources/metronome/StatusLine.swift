import Dispatch
import MetronomeKit

/// The one-line live status on a terminal: bar.beat, tempo, meter, and the bar's beats with the current one shown
/// by its level (`X` accent, `x` normal, `o` soft, `-` silent) and the others as `·`. Redrawn in place on every
/// beat from the scheduler queue (never the audio thread); used only when stdout is a terminal.
final class StatusLine: @unchecked Sendable {
    // @unchecked: `drawn` and the writes happen only on the private serial queue.
    private let output = FileOutput.standardOutput
    private let queue = DispatchQueue(label: "metronome.status")
    private var drawn = false

    /// Draws the line for a beat.
    func show(_ beat: ClickEvent) {
        let text = StatusLine.text(for: beat)
        queue.async {
            self.output.write("\r\u{1B}[2K" + text)
            self.drawn = true
        }
    }

    /// Ends the line so the shell prompt starts on a fresh one.
    func finish() {
        queue.sync {
            if drawn { output.write("\n") }
            drawn = false
        }
    }

    /// The status text of a beat (without escape codes).
    static func text(for beat: ClickEvent) -> String {
        let cells = (0..<beat.meter.beats).map { index -> String in
            guard index == beat.beat else { return "·" }
            return beat.level == .silent ? "-" : String(beat.level.letter)
        }
        let tempo = (beat.tempo * 10).rounded() / 10
        let tempoText = tempo.rounded() == tempo ? String(Int(tempo)) : String(tempo)
        let position = beat.isCountIn ? "count-in" : "\(beat.bar + 1).\(beat.beat + 1)"
        return " \(position)  \(tempoText) BPM  \(beat.meter)  \(cells.joined(separator: " "))"
    }
}
