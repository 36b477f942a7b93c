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

    /// The names of the options given.
    var given: [String] {
        [
            ("--latency", latency != nil), ("--lookahead", lookahead != nil), ("--device", device != nil),
            ("--verbose", verbose),
        ].filter(\.1).map(\.0)
    }

    /// Checked values.
    struct Checked {
        var latency: Duration
        var lookahead: Duration?
        var device: String?
        var verbose: Bool
    }

    /// Checks the values; with `--output` none of them may be given.
    func checked(rendering: Bool) throws(CommandLineError) -> Checked {
        if rendering {
            for (name, given) in [
                ("--latency", latency != nil), ("--lookahead", lookahead != nil), ("--device", device != nil),
            ]
            where given {
                throw CommandLineError(.usage, "\(name) applies only to live playback, not with --output")
            }
        }
        let latency = try latency.map { text throws(CommandLineError) -> Duration in
            guard let value = Double(text), value.isFinite, (2...2000).contains(value) else {
                throw .usage(option: "--latency", "\(text): latency must be a number of milliseconds from 2 to 2000")
            }
            return .microseconds(Int64((value * 1000).rounded()))
        }
        let lookahead = try lookahead.map { text throws(CommandLineError) -> Duration in
            guard let value = Double(text), value.isFinite, (5...2000).contains(value) else {
                throw .usage(
                    option: "--lookahead", "\(text): lookahead must be a number of milliseconds from 5 to 2000")
            }
            return .microseconds(Int64((value * 1000).rounded()))
        }
        return Checked(
            latency: latency ?? .milliseconds(20), lookahead: lookahead, device: device, verbose: verbose)
    }
}
