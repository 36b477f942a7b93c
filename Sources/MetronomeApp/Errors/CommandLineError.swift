
/// The process exit codes (sysexits.h), in one place.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// Bad command-line usage or value.
    case usage = 64
    /// Malformed data: a pattern, sample or bank that cannot be decoded.
    case dataError = 65
    /// An input file is missing or cannot be opened.
    case noInput = 66
    /// The sound server is unavailable.
    case unavailable = 69
    /// The output cannot be created.
    case cannotCreate = 73
    /// An I/O error while running.
    case ioError = 74
    /// Stopped by SIGINT before finishing a render (128 + 2, the shell convention).
    case interrupted = 130
}

/// An error the command line reports as one line (`metronome: error: …`) and an exit status: the library's typed
/// errors worded with the options that name what went wrong (`CommandLineError+Library.swift`), shared by the CLI
/// and the live run's composition (MetronomeHub).
public struct CommandLineError: Error {
    public let status: ExitStatus
    public let message: String
    /// Whether the message gets the `metronome: error: ` prefix (positioned file errors carry their own).
    public let prefixed: Bool

    public init(_ status: ExitStatus, _ message: String, prefixed: Bool = true) {
        self.status = status
        self.message = message
        self.prefixed = prefixed
    }

    /// A bad value of an option: `--bpm 0: tempo must be …`.
    public static func usage(option: String, _ problem: String) -> CommandLineError {
        CommandLineError(.usage, "\(option) \(problem)")
    }
}
