import ArgumentParser
import MetronomeHub
import MetronomeKit

/// `metronome clock`: a MIDI clock monitor through JACK.
struct Clock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a MIDI clock arriving through JACK: its tempo, jitter, Start, Stop, Continue and position.",
        discussion: """
            Listens on metronome:midi_in (connect a port with --from, or jack_connect) and prints a line a second \
            (the tempo, steady to what the jitter allows; the jitter's σ, spread and 99th percentile) and one per \
            Start, Continue, Stop and Song Position Pointer, with the seconds since it started. Runs until Ctrl-C \
            (exit 0) or for --seconds. No JACK server is exit 69. docs/midi-clock.md.
            """)

    @Option(help: .setting(Settings.From.self))
    var from: SettingValue<Settings.From>?
    @Flag(help: "Print JSON lines (one object per line) for scripts instead of text.")
    var json = false
    @Option(parsing: .unconditional, help: .setting(Settings.ListenSeconds.self))
    var seconds: SettingValue<Settings.ListenSeconds>?

    /// The main command's options: `--client-name` is taken, the rest refused.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(
            in: "clock", except: ["--client-name"], note: "it takes --from, --json, --seconds and --client-name")
        var monitor = ClockMonitorCommand()
        if let name = root.live.jack.clientName { monitor.clientName = name.text }
        monitor.source = from?.text
        monitor.json = json
        if let seconds {
            let value = try parseOption("--seconds", seconds.text, Settings.ListenSeconds.read)
            monitor.duration = .milliseconds(Int64((value * 1000).rounded()))
        }
        let signals = StopSignals()
        try monitor.run(say: FileOutput.standardOutput.write) { StopSignals.wasReceived }
        _ = signals.signalReceived
    }
}
