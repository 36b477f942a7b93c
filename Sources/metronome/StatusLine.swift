import Dispatch
import Glibc
import MetronomeHub
import MetronomeKit

/// The one-line live status on a terminal: bar.beat, tempo, meter, and the bar's beats with the current one shown
/// by its level (`X` accent, `x` normal, `o` soft, `-` silent) and the others as `·`. Redrawn in place on every
/// beat from the scheduler queue (never the audio thread); used only when stdout is a terminal.
final class StatusLine: BeatDisplay, @unchecked Sendable {
    // @unchecked: `drawn` and the writes happen only on the private serial queue.
    private let output = FileOutput.standardOutput
    private let queue = DispatchQueue(label: "metronome.status")
    private var drawn = false
    /// With `--link`: the number of Link peers now, shown after the beat.
    private let peers: (@Sendable () -> Int)?

    init(peers: (@Sendable () -> Int)? = nil) { self.peers = peers }

    /// Draws the line for a beat, cut to the terminal's width so it never wraps.
    func show(_ beat: BeatEvent) {
        let text = StatusLine.text(for: beat, peers: peers?(), width: StatusLine.terminalColumns())
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

    /// The status text of a beat (without escape codes): bar.beat, tempo, meter, the bar's beats, then the section
    /// label and the chord when there are any, and with `--link` the Link peers; at most `width − 1` characters (the
    /// last column stays free, so the cursor never wraps).
    static func text(for beat: BeatEvent, peers: Int? = nil, width: Int? = nil) -> String {
        let cells = (0..<beat.meter.beats).map { index -> String in
            guard index == beat.beat - 1 else { return "·" }
            return beat.level == .silent ? "-" : String(beat.level.letter)
        }
        let tempo = (beat.tempo * 10).rounded() / 10
        let tempoText = tempo.rounded() == tempo ? String(Int(tempo)) : String(tempo)
        let position = beat.isCountIn ? "count-in" : "\(beat.bar).\(beat.beat)"
        var text = " \(position)  \(tempoText) BPM  \(beat.meter)  \(cells.joined(separator: " "))"
        if !beat.isCountIn, let section = beat.section { text += "  \(section)" }
        if let chord = beat.chord { text += "  \(chord)" }
        if let peers { text += "  Link: \(peers) \(peers == 1 ? "peer" : "peers")" }
        guard let width, width > 1, text.count > width - 1 else { return text }
        return String(text.prefix(width - 1))
    }

    /// Columns of the terminal on standard output, or nil when unknown.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
