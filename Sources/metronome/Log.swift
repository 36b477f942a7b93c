import ArgumentParser
import Foundation
import MetronomeHub
import MetronomeKit
import MetronomeLog

/// `metronome log`: the practice log's summary (today, this week, per song or pattern) or its runs, as text, JSON or
/// CSV. The queries and the wording are the library's (`PracticeSummary`, `PracticeReport`).
struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the practice log: time practised today, this week and per song or pattern, and the top tempo.",
        discussion: """
            Every live run is recorded (docs/practice.md): what was played, its tempo range, meters, sound, duration \
            and how it ended. Weeks run Monday to Sunday in local time. --log-file FILE reads another file than the \
            default, $XDG_DATA_HOME/metronome/practice.sqlite (else ~/.local/share/metronome/practice.sqlite). Exit \
            codes: 64 a bad date, 65 a file that is not a practice log, 66 a missing file.
            """)

    /// The main command's options, parsed to take `--log-file` and refuse the rest.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    @Option(help: "Only runs from this day on, YYYY-MM-DD (local date), in the per-song table and --runs.")
    var since: String?

    @Option(help: "Only runs up to this day, YYYY-MM-DD (local date), in the per-song table and --runs.")
    var until: String?

    @Flag(help: "List the runs, one a line, instead of the summary.")
    var runs = false

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Print CSV (RFC 4180, a header line first).")
    var csv = false

    func run() throws {
        try root.refuse(
            in: "log", except: ["--log-file"], note: "it takes --log-file, --since, --until, --runs, --json, --csv")
        if json, csv { throw CommandLineError(.usage, "--json and --csv cannot be used together; choose one") }
        var command = PracticeLogCommand()
        (command.file, command.since, command.until, command.runs) = (root.live.playback.logFile, since, until, runs)
        command.format = json ? .json : csv ? .csv : .text
        let environment = ProcessInfo.processInfo.environment
        print(try command.output(now: Date(), timeZone: .current, environment: environment), terminator: "")
    }
}
