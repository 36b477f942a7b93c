import ArgumentParser
import Glibc
import MetronomeJack
import MetronomeKit

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
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            try checkHelpTopic(arguments)
            var command = try parseAsRoot(Serve.bareHTTP(try bareTempo(arguments)))
            try command.run()
        } catch let error as CommandLineError {
            if error.prefixed {
                fail(error.message, status: error.status)
            }
            FileOutput.standardError.write(error.message + "\n")
            Glibc.exit(error.status.rawValue)
        } catch {
            let code = exitCode(for: error).rawValue
            if code == 0 {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            fail(message(for: error) + "\nRun 'metronome --help' for the options.", status: .usage)
        }
    }

    /// `metronome help NAME` for a NAME that is no command is an error (64), not the main help with status 0.
    static func checkHelpTopic(_ arguments: [String]) throws(CommandLineError) {
        guard arguments.first == "help", arguments.count > 1, !arguments[1].hasPrefix("-") else { return }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(arguments[1]) else { return }
        throw CommandLineError(
            .usage, "help \(arguments[1]): no such command; the commands are \(names.joined(separator: ", "))")
    }

    /// `metronome 120 …`, klick's way: a first argument that starts like a number is the tempo, as `--bpm` (a
    /// subcommand name never does). Given with `--bpm` as well, it is an error.
    static func bareTempo(_ arguments: [String]) throws(CommandLineError) -> [String] {
        guard let first = arguments.first, let character = first.first, character.isNumber || character == "."
        else { return arguments }
        if arguments.contains(where: { $0 == "--bpm" || $0.hasPrefix("--bpm=") }) {
            throw CommandLineError.usage(option: "--bpm", "given twice: as the first argument (\(first)) and as --bpm")
        }
        return ["--bpm", first] + arguments.dropFirst()
    }

    static func fail(_ message: String, status: ExitStatus) -> Never {
        FileOutput.standardError.write("metronome: error: \(message)\n")
        Glibc.exit(status.rawValue)
    }
}
