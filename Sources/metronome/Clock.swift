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

    @Option(help: "A JACK MIDI output port to connect to metronome:midi_in (default: none; connect one yourself).")
    var from: String?

    @Flag(help: "Print JSON lines (one object per line) for scripts instead of text.")
    var json = false

    // Not --duration: the main command's --duration would take it.
    @Option(parsing: .unconditional, help: "Listen for this many seconds, 0.1 to 86400 (default: until Ctrl-C).")
    var seconds: String?

    /// The main command's options: `--client-name` is taken, the rest refused.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(
            in: "clock", except: ["--client-name"], note: "it takes --from, --json, --seconds and --client-name")
        var monitor = ClockMonitorCommand()
        if let name = root.live.jack.clientName { monitor.clientName = name }
        monitor.source = from
        monitor.json = json
        if let seconds {
            guard let value = Double(seconds), value >= 0.1, value <= 86_400 else {
                throw CommandLineError.usage(option: "--seconds", "\(seconds): give 0.1 to 86400 seconds")
            }
            monitor.duration = .milliseconds(Int64((value * 1000).rounded()))
        }
        let signals = StopSignals()
        try monitor.run(say: FileOutput.standardOutput.write) { StopSignals.wasReceived }
        _ = signals.signalReceived
    }
}
