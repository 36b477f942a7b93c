import ArgumentParser
import Glibc
import MetronomeJack
import MetronomeKit
import MetronomeWeb

/// `metronome`: a sample-accurate click track, live or rendered to a file.
@main
struct Metronome: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metronome",
        abstract: "A sample-accurate metronome: a click track live through PulseAudio, or rendered to a file.",
        usage: """
            metronome [TEMPO | --bpm 120] [--meter 4/4 | 7/8=2+2+3] [--accent X.x.] [--subdivide N] \
            [--swing [16=]P] [--gap PLAY:MUTE] [--trainer STEP/BARS:LIMIT] [--count-in BARS] [--bars N | --duration S] \
            [--volume V] [--sound NAME | --sound-file A[,N[,S]]] [--output FILE]
              metronome play FILE-or-NAME [--start-at LABEL] [--tempo-scale F] [options]
              metronome check FILE    metronome patterns    metronome sounds | devices
              metronome arp "C Am F G" [--rate 1/16] [--style upDown] [--octaves 2] [--gate 0.8] [--click] [options]
              metronome chord "Cmaj7" [--strum MS] [--octave 4] [--duration S] [options]
              metronome serve [FILE-or-NAME] [--osc 127.0.0.1:7770] [--wait] [options]
              metronome log [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--runs] [--json | --csv] [--log-file FILE]
            """,
        discussion: """
            Tempo is in quarter notes per minute whatever the meter (klick's convention): at 120 BPM in 6/8 each \
            eighth note lasts 0.25 s. Accent letters: X accent, x normal, o soft, . silent. The options make one \
            section of a .metro file and follow its rules: --swing 16=60 is 'swing 16 60%', --meter 7/8=2+2+3 is \
            'meter 7/8 2+2+3', --gap 3:1 is 'gap play 3 mute 1', --trainer +4/2:160 is 'trainer +4 every 2 bars to \
            160'.
            Exit codes: 0 success, 64 bad usage or value, 65 malformed data, 66 missing input, 69 sound server \
            unavailable, 73 cannot create output, 74 I/O error, 130 stopped by Ctrl-C while rendering or before \
            the first sound (connecting, joining Link).
            """,
        version: Metronome.version,
        subcommands: [
            Play.self, Check.self, Patterns.self, Arp.self, Chord.self, Serve.self, Sounds.self, Devices.self,
            Clock.self, Log.self,
        ])

    @OptionGroup(title: HelpSection.click) var click: ClickOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Section (as one section of a .metro file)") var section: SectionOptions
    @OptionGroup var live: LiveOptions

    mutating func run() throws {
        let jack = try live.adopting(&output)
        try Metronome.perform(
            try Job(click.form.merging(output.form).merging(section.form), .click(silent: false)), live: live,
            jack: jack)
    }

    /// Renders the plan when it names an output, plays it live otherwise (through `jack`, a JACK client opened by
    /// `LiveOptions.adopting`, when there is one).
    static func perform(_ job: Job, live: LiveOptions, jack: JackClient?) throws(CommandLineError) {
        let settings = try live.checked(rendering: job.output != nil)
        if let output = job.output, let audio = output.audio {
            try ClickRender(job: job, output: output, audio: audio).run()
        } else if let output = job.output {
            try MIDIRender(job: job, output: output).run()
        } else {
            try ClickLive(job: job, live: settings, jackClient: jack).run()
        }
    }

    /// The version `metronome --version` prints: the release's number (the next one's with `-dev` between releases).
    static let version = "0.1.0"

    /// Parses, runs, and maps every failure to one line on stderr and a sysexits status.
    static func main() {
        var rewritten: [String] = []
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            try CommandArguments.checkHelpTopic(arguments, commands: configuration.subcommands.map { $0._commandName })
            // `metronome 120 …` is `--bpm 120`, and `serve --http` with no address serves the web remote at the
            // standard one.
            rewritten = CommandArguments.bareAddress(
                try CommandArguments.bareTempo(arguments), command: "serve", option: "--http",
                standard: WebAddress.standard.description)
            var command = try parseAsRoot(rewritten)
            try command.run()
        } catch let error as CommandLineError {
            report(error)
        } catch {
            // A rule a command's `validate()` found broken, unless the command line has a mistake ArgumentParser
            // reports after validating (an option it does not know): that one first (`OptionRules`).
            if let rule = OptionRules.state.withLock({ $0.broken }) {
                OptionRules.state.withLock { $0.checked = false }
                do { _ = try parseAsRoot(rewritten) } catch { usageFailure(error) }
                report(rule)
            }
            usageFailure(error)
        }
    }

    /// ArgumentParser's failure (or `--help`, `--version`: exit 0) in its words, with a pointer to the help.
    static func usageFailure(_ error: any Error) -> Never {
        if exitCode(for: error).rawValue == 0 {
            print(fullMessage(for: error))
            Glibc.exit(0)
        }
        fail(message(for: error) + "\nRun 'metronome --help' for the options.", status: .usage)
    }

    /// Prints `error` in one line (prefixed unless it carries its own position) and exits with its status.
    static func report(_ error: CommandLineError) -> Never {
        if error.prefixed { fail(error.message, status: error.status) }
        FileOutput.standardError.write(error.message + "\n")
        Glibc.exit(error.status.rawValue)
    }

    static func fail(_ message: String, status: ExitStatus) -> Never {
        FileOutput.standardError.write("metronome: error: \(message)\n")
        Glibc.exit(status.rawValue)
    }
}
