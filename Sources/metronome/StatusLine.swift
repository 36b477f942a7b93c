import Dispatch
import Glibc
import MetronomeHub
import MetronomeKit

/// The one-line live status on a terminal (`LiveStatus.text`): redrawn in place on every beat and when the state,
/// the volume or the clock changes between beats, cut to the terminal's width so it never wraps; used only when
/// stdout is a terminal.
final class StatusLine: BeatDisplay, @unchecked Sendable {
    // @unchecked: `drawn` and the writes happen only on the private serial queue.
    private let output = FileOutput.standardOutput
    private let queue = DispatchQueue(label: "metronome.status")
    private var drawn = false

    func show(_ status: LiveStatus) {
        let text = status.text(width: StatusLine.terminalColumns())
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

    /// Columns of the terminal on standard output, or nil when unknown.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
