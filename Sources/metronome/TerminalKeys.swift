import Dispatch
import Glibc
import MetronomeKit

/// The terminal's settings before keys were turned on, for the crash handlers. Written once, before any handler is
/// installed, and only read afterwards (by a signal handler or `restore`): that is what makes the unsafe global safe.
nonisolated(unsafe) private var savedTerminal = termios()

/// Reads klick's keys from a terminal while a metronome plays: standard input goes to non-canonical mode without
/// echo (Ctrl-C still signals), a background thread decodes each read into keys for `handler`, and `restore` puts
/// the terminal back and drops whatever was typed and not read, so nothing leaks to the shell. Crash signals restore
/// the terminal too before the process dies.
final class TerminalKeys: @unchecked Sendable {
    // @unchecked: `restored` is touched only by the thread that calls `restore` (the command's main thread).
    private var restored = false

    /// Starts reading keys when standard input is a terminal; nil otherwise.
    static func start(handler: @escaping @Sendable (Key) -> Void) -> TerminalKeys? {
        guard isatty(0) == 1, tcgetattr(0, &savedTerminal) == 0 else { return nil }
        var raw = savedTerminal
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_cc.6 = 1  // VMIN: a read returns as soon as one byte is there
        raw.c_cc.5 = 0  // VTIME: no timeout
        guard tcsetattr(0, TCSANOW, &raw) == 0 else { return nil }
        for number in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(number) { number in
                tcsetattr(0, TCSANOW, &savedTerminal)
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        DispatchQueue(label: "metronome.keys").async {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(0, &buffer, buffer.count)
                guard count > 0 else { return }
                for key in decoder.feed(Array(buffer[0..<count])) { handler(key) }
            }
        }
        return TerminalKeys()
    }

    /// Puts the terminal back as it was and discards unread input. Safe to call more than once.
    func restore() {
        guard !restored else { return }
        restored = true
        tcflush(0, TCIFLUSH)
        tcsetattr(0, TCSANOW, &savedTerminal)
    }
}
