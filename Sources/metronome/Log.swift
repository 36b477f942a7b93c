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

    @Option(help: .setting(Settings.Since.self))
    var since: SettingValue<Settings.Since>?
    @Option(help: .setting(Settings.Until.self))
    var until: SettingValue<Settings.Until>?
    @Flag(help: "List the runs, one a line, instead of the summary.")
    var runs = false
    @Flag(help: "Print JSON.")
    var json = false
    @Flag(help: "Print CSV (RFC 4180, a header line first).")
    var csv = false

    /// The main command's options but `--log-file` refused, then `--json` and `--csv` together.
    func validate() throws {
        try validating { () throws(CommandLineError) in
            try root.refuse(
                in: "log", except: ["--log-file"], note: "it takes --log-file, --since, --until, --runs, --json, --csv")
            if json, csv { throw CommandLineError(.usage, "--json and --csv cannot be used together; choose one") }
        }
    }

    func run() throws {
        var command = PracticeLogCommand()
        (command.file, command.since, command.until, command.runs) = (
            root.live.playback.logFile?.text, since?.text, until?.text, runs
        )
        command.format = json ? .json : csv ? .csv : .text
        let environment = ProcessInfo.processInfo.environment
        print(try command.output(now: Date(), timeZone: .current, environment: environment), terminator: "")
    }
}
