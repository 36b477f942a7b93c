import MetronomeHub
import MetronomeJack
import MetronomeKit
import Synchronization

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
    /// A setlist to play (`metronome play gig.setlist`) instead of the job's plan.
    var setlist: SetlistPlan? = nil

    /// The live run the library composes.
    private var command: LiveCommand {
        if let setlist { return LiveCommand(setlist: setlist, live: live, serving: serving, jackClient: jackClient) }
        return LiveCommand(plan: job.plan, live: live, serving: serving, jackClient: jackClient)
    }

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
        terminal.started = { controls, songs in
            let setKeys = Mutex(SetlistKeys())
            keys = TerminalKeys.start { key in
                // In a set, its keys first (the digits are a song's number there).
                if let songs, let action = setKeys.withLock({ $0.take(key) }) { return songs.perform(action) }
                guard let action = KeyAction(key) else { return }
                if action == .help {
                    let lines = KeyAction.summaryLines + (songs == nil ? [] : SetlistKeys.summaryLines)
                    FileOutput.standardError.write("\r\n" + lines.joined(separator: "\r\n") + "\r\n")
                }
                controls.perform(action)
            }
        }
        try command.run(terminal)
    }
}
