import ArgumentParser
import MetronomeHub
import MetronomeKit

/// `metronome serve [FILE-or-NAME]`: a long-running metronome played through PulseAudio and controlled over OSC.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A long-running metronome controlled over OSC (UDP), klick's addresses included.",
        discussion: """
            Plays a click from the options (or a pattern file) through PulseAudio and listens for Open Sound Control \
            on 127.0.0.1:7770 (--osc [HOST:]PORT). It starts at once, or with --wait on /metronome/play; it runs until \
            /metronome/quit, /klick/quit, q or Esc on the terminal, or Ctrl-C, and then exits 0. A pattern that ends \
            stops the transport; the service stays. Any address but a loopback one must be given with --osc, and a \
            warning says that OSC has no authentication. The addresses are listed in docs/osc.md. \
            --http also serves the web remote, a page for a phone or a browser (docs/web.md).
            """)

    @Argument(help: "A pattern file, or the name of a shipped pattern (default: a click from the options).")
    var file: String?
    @Option(help: .setting(Settings.OSC.self))
    var osc: SettingValue<Settings.OSC>?
    @Option(help: .setting(Settings.HTTP.self))
    var http: SettingValue<Settings.HTTP>?
    @Flag(help: "With --http: require the token on a loopback address too.")
    var httpToken = false
    @Option(
        name: .customLong("patterns"),
        help: """
            A folder of .metro patterns: a bare name (on the command line, over OSC) is looked up there after the \
            shipped patterns, and the web remote lists its patterns too. Repeatable.
            """)
    var patternFolders: [String] = []

    @Flag(help: "Wait for /metronome/play (or /klick/metro/start, or space) instead of playing at once.")
    var wait = false
    @OptionGroup(title: HelpSection.click) var click: ClickOptions
    @OptionGroup var output: ServedOutputOptions
    /// Parsed only to be refused: the served click is steady or a loaded file's, and a file sets its own swing, gap
    /// and trainers.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup(title: "Notes (/metronome/note, chord, arp)") var notes: NoteOptions
    @OptionGroup var live: LiveOptions

    /// A set's mistakes, before a JACK client is opened (64 with no server too).
    func validate() throws {
        guard let file, SetlistDocument.isSetlist(path: file) else { return }
        try validating { () throws(CommandLineError) in
            if let refusal = LiveCommand.refusal(setlist: true, live: try live.checked(rendering: false)) {
                throw refusal
            }
        }
    }

    mutating func run() throws {
        let jack = try live.adopting(&output)
        try section.refuse("does not apply to 'serve'; write it in a .metro file and serve that")
        if output.output != nil {
            throw CommandLineError.usage(
                option: "--output", "\(output.output!): 'serve' plays live; render with the main command")
        }
        let request = ServeRequest(
            file: file, osc: osc?.text, http: http?.text, httpToken: httpToken, patternFolders: patternFolders,
            waits: wait,
            qrCode: !output.quiet && FileOutput.standardError.isTerminal, click: click.form.merging(output.form),
            notes: notes.form)
        let (plan, setup) = try request.checked { FileOutput.standardError.write($0) }
        if !output.quiet, let mute = plan.randomMute {
            FileOutput.standardError.write(SettingForm.randomMuteLine(mute))
        }
        try ClickLive(
            job: Job(plan: plan, output: nil, quiet: output.quiet), live: try live.checked(rendering: false),
            serving: setup, jackClient: jack, setlist: setup.setlist
        ).run()
    }
}
