import ArgumentParser
import MetronomeKit

/// Options that only live playback takes.
struct LiveOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Target output latency in milliseconds, 2 to 2000 (default 20).")
    var latency: String?

    @Option(
        parsing: .unconditional,
        help: "How far ahead clicks are scheduled, in milliseconds, 5 to 2000 (default: 10 ms timer + latency + 10).")
    var lookahead: String?

    @Option(help: "PulseAudio sink to play to (see 'metronome devices'; default: the server's default sink).")
    var device: String?

    @Flag(help: "On exit, print late events, server underruns, the measured latency and real-time priority.")
    var verbose = false

    @Flag(help: "If the sound server or the sink goes away while playing, stop with exit 69 instead of reconnecting.")
    var noReconnect = false

    @Option(
        parsing: .unconditional,
        help: """
            If the sound server or the sink goes away while playing, how long to keep the beat going silently and \
            retry, in seconds, 1 to 86400, before exit 69 (default 30).
            """)
    var reconnectTimeout: String?

    /// Every option, in the order of the help: its name, whether it was given, and whether a render (`--output`)
    /// refuses it (all but `--verbose`).
    private var options: [(name: String, isGiven: Bool, isLiveOnly: Bool)] {
        [
            ("--latency", latency != nil, true), ("--lookahead", lookahead != nil, true),
            ("--device", device != nil, true), ("--verbose", verbose, false), ("--no-reconnect", noReconnect, true),
            ("--reconnect-timeout", reconnectTimeout != nil, true),
        ]
    }

    /// The names of the options given.
    var given: [String] { options.filter(\.isGiven).map(\.name) }

    /// Checked values.
    struct Checked {
        var latency: Duration
        var lookahead: Duration?
        var device: String?
        var verbose: Bool
        /// How long to retry after the server or the sink went away; nil: do not reconnect (exit 69 at once).
        var reconnectTimeout: Duration?
    }

    /// Checks the values; with `--output` none but `--verbose` may be given.
    /// - Parameter rendering: whether the command renders to a file (`--output`) instead of playing.
    /// - Returns: the values, defaults filled in.
    /// - Throws: `CommandLineError` (64) for a live-only option given to a render, or a value out of range.
    func checked(rendering: Bool) throws(CommandLineError) -> Checked {
        if rendering, let option = options.first(where: { $0.isGiven && $0.isLiveOnly }) {
            throw CommandLineError(.usage, "\(option.name) applies only to live playback, not with --output")
        }
        let latency = try parseOption("--latency", latency, SettingText.latency)
        let lookahead = try parseOption("--lookahead", lookahead, SettingText.lookahead)
        let reconnect = try parseOption("--reconnect-timeout", reconnectTimeout, SettingText.reconnectTimeout)
        if noReconnect, reconnectTimeout != nil {
            throw CommandLineError(.usage, "--reconnect-timeout does not apply with --no-reconnect")
        }
        return Checked(
            latency: latency ?? .milliseconds(20), lookahead: lookahead, device: device, verbose: verbose,
            reconnectTimeout: noReconnect ? nil : reconnect ?? .seconds(30))
    }
}
