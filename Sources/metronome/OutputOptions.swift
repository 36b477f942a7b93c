import ArgumentParser
import MetronomeKit

/// How the sound comes out, whatever makes it (a click, a pattern, notes): how long, how loud, at what rate and in
/// how many channels and voices, and the file it is written to. `chord` takes these and not the click's options, so
/// they are a group of their own; its two parts (`LevelOptions`, `FileOptions`) let `serve` show the first only. The
/// options with a default are optional so that a command that takes none of them can tell one was given; their help
/// states the default as the argument parser would.
struct OutputOptions: ParsableArguments, OutputParts {
    @OptionGroup(title: HelpSection.output) var level: LevelOptions
    @OptionGroup(title: HelpSection.output) var file: FileOptions
}

/// `serve`'s: the output's options without the file's, which it refuses (it only plays).
struct ServedOutputOptions: ParsableArguments, OutputParts {
    @OptionGroup(title: HelpSection.output) var level: LevelOptions
    /// Parsed only to be refused: `serve` plays live.
    @OptionGroup(visibility: .hidden) var file: FileOptions
}

/// The output's options as a command reads them, whichever of its parts the command shows.
protocol OutputParts {
    var level: LevelOptions { get set }
    var file: FileOptions { get }
}

extension OutputParts {
    var duration: String? { level.duration }
    var sampleRate: String? {
        get { level.sampleRate }
        set { level.sampleRate = newValue }
    }
    var quiet: Bool { level.quiet }
    var output: String? { file.output }
    var midiTempo: String? { file.midiTempo }

    /// The options as the library's form.
    var form: SettingForm {
        SettingForm([
            ("--duration", level.duration), ("--volume", level.volume), ("--gain-db", level.gainDecibels),
            ("--sample-rate", level.sampleRate), ("--output", file.output), ("--format", file.format),
            ("--midi-tempo", file.midiTempo), ("--channels", file.channels), ("--voices", level.voices),
            SettingForm.flag("--quiet", level.quiet), SettingForm.flag("--force", file.force),
        ])
    }

    /// `--sample-rate`, checked.
    func checkedSampleRate() throws(CommandLineError) -> SampleRate { try level.checkedSampleRate() }
}

/// How long, how loud, at what rate and in how many voices: live or rendered.
struct LevelOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Stop after this many seconds.")
    var duration: String?

    @Option(parsing: .unconditional, help: "Perceptual volume 0 to 1 (gain = volume³, like PulseAudio's slider).")
    var volume: String?

    @Option(
        name: .customLong("gain-db"), parsing: .unconditional,
        help: "Master gain in dB, -96 to 12, instead of --volume.")
    var gainDecibels: String?

    @Option(
        name: .customLong("sample-rate"), parsing: .unconditional,
        help: ArgumentHelp(
            "Output sample rate in Hz: \(SampleRate.allowed.dropLast().map(String.init).joined(separator: ", ")) or "
                + "\(SampleRate.allowed.last!). (default: 48000)"))
    var sampleRate: String?

    @Option(parsing: .unconditional, help: "Voices that may sound at once, 1 to 4096. (default: 64)")
    var voices: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// `--sample-rate`, checked.
    func checkedSampleRate() throws(CommandLineError) -> SampleRate {
        do { return try SettingForm([("--sample-rate", sampleRate)]).sampleRate() } catch {
            throw CommandLineError(error)
        }
    }
}

/// The file a render writes (`serve`, which only plays, hides them and refuses `--output`).
struct FileOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: "Render to this file instead of playing (.wav, .flac, .ogg or .aiff), or export a MIDI file (.mid).")
    var output: String?

    @Option(help: "Sample type of the file: pcm16, pcm24 or float (default float; pcm24 for .flac).")
    var format: String?

    @Option(
        name: .customLong("midi-tempo"), parsing: .unconditional,
        help: ArgumentHelp(
            "A MIDI file's tempo events: steady (one per tempo change) or exact (one every beat, every beat on its "
                + "frame). (default: steady)"))
    var midiTempo: String?

    @Option(parsing: .unconditional, help: "Channels of the file: 1 or 2. (default: 2)")
    var channels: String?

    @Flag(help: "With --output FILE.wav or .aiff: render even when the file may not fit the free space.")
    var force = false
}
