import MetronomeHub
import MetronomeJack
import MetronomeKit

/// `metronome` without `--output`, and `serve`: the live run the library composes (`LiveCommand`), with what a
/// terminal adds — Ctrl-C, SIGTERM and SIGHUP as a stop, errors and reports on standard error, the status line on
/// standard output when it is a terminal (not with `--quiet`), and klick's keys when standard input is one (the
/// terminal is put back however the command ends).
struct ClickLive {
    let job: Job
    let live: LiveSettings
    var serving: ServeSetup? = nil
    /// The JACK client `LiveOptions.adopting` opened (its server's period is the output's latency); the first client
    /// the run plays through.
    var jackClient: JackClient? = nil

    func run() throws(CommandLineError) {
        // Installed first: a stop during Link's join window or the server's answer ends the command as any other.
        let stop = StopSignals()
        defer { _ = stop.signalReceived }
        var keys: TerminalKeys?
        defer { keys?.restore() }
        var terminal = LiveCommand.Terminal()
        terminal.say = { FileOutput.standardError.write($0) }
        terminal.isCancelled = { StopSignals.wasReceived }
        terminal.warn = { FileOutput.standardError.write($0) }
        let showsStatus = FileOutput.standardOutput.isTerminal && !job.quiet
        terminal.statusLine = { showsStatus ? StatusLine() : nil }
        terminal.started = { controls in
            keys = TerminalKeys.start { key in
                guard let action = KeyAction(key) else { return }
                if action == .help {
                    FileOutput.standardError.write("\r\n" + KeyAction.summaryLines.joined(separator: "\r\n") + "\r\n")
                }
                controls.perform(action)
            }
        }
        try LiveCommand(plan: job.plan, live: live, serving: serving, jackClient: jackClient).run(terminal)
    }
}
