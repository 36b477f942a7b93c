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

    @Option(
        help: "Where to listen for OSC over UDP, [HOST:]PORT (a port alone is on 127.0.0.1; default 127.0.0.1:7770).")
    var osc: String?

    @Option(
        help: """
            Also serve the web remote, a page and a WebSocket over HTTP, on [HOST:]PORT (bare --http: 127.0.0.1:7780). \
            Any address but a loopback one needs the token printed with the URL (at a terminal, also as a QR code).
            """)
    var http: String?

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

    mutating func run() throws {
        // A set's mistakes first, before a JACK client is opened (64 with no server too).
        if let file, SetlistDocument.isSetlist(path: file),
            let refusal = LiveCommand.refusal(setlist: true, live: try live.checked(rendering: false))
        {
            throw refusal
        }
        let jack = try live.adopting(&output)
        try section.refuse("does not apply to 'serve'; write it in a .metro file and serve that")
        if output.output != nil {
            throw CommandLineError.usage(
                option: "--output", "\(output.output!): 'serve' plays live; render with the main command")
        }
        let request = ServeRequest(
            file: file, osc: osc, http: http, httpToken: httpToken, patternFolders: patternFolders, waits: wait,
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
