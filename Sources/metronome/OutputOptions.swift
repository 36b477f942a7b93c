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
    var duration: SettingValue<Settings.Duration>? { level.duration }
    var sampleRate: SettingValue<Settings.SampleRate>? {
        get { level.sampleRate }
        set { level.sampleRate = newValue }
    }
    var quiet: Bool { level.quiet }
    var output: String? { file.output?.text }

    /// The options as the library's form.
    var form: SettingForm {
        SettingForm([
            entry(level.duration), entry(level.volume), entry(level.gainDecibels),
            entry(level.sampleRate), entry(file.output), entry(file.format),
            entry(file.midiTempo), entry(file.channels), entry(level.voices),
            SettingForm.flag("--quiet", level.quiet), SettingForm.flag("--force", file.force),
        ])
    }

    /// `--sample-rate`, checked.
    func checkedSampleRate() throws(CommandLineError) -> SampleRate { try level.checkedSampleRate() }
}

/// How long, how loud, at what rate and in how many voices: live or rendered.
struct LevelOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .setting(Settings.Duration.self))
    var duration: SettingValue<Settings.Duration>?
    @Option(parsing: .unconditional, help: .setting(Settings.Volume.self))
    var volume: SettingValue<Settings.Volume>?
    @Option(name: .customLong("gain-db"), parsing: .unconditional, help: .setting(Settings.GainDB.self))
    var gainDecibels: SettingValue<Settings.GainDB>?
    @Option(name: .customLong("sample-rate"), parsing: .unconditional, help: .setting(Settings.SampleRate.self))
    var sampleRate: SettingValue<Settings.SampleRate>?
    @Option(parsing: .unconditional, help: .setting(Settings.Voices.self))
    var voices: SettingValue<Settings.Voices>?
    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// `--sample-rate`, checked.
    func checkedSampleRate() throws(CommandLineError) -> SampleRate {
        do { return try SettingForm([entry(sampleRate)]).sampleRate() } catch {
            throw CommandLineError(error)
        }
    }
}

/// The file a render writes (`serve`, which only plays, hides them and refuses `--output`).
struct FileOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: .setting(Settings.Output.self))
    var output: SettingValue<Settings.Output>?
    @Option(help: .setting(Settings.Format.self))
    var format: SettingValue<Settings.Format>?
    @Option(name: .customLong("midi-tempo"), parsing: .unconditional, help: .setting(Settings.MIDITempo.self))
    var midiTempo: SettingValue<Settings.MIDITempo>?
    @Option(parsing: .unconditional, help: .setting(Settings.Channels.self))
    var channels: SettingValue<Settings.Channels>?
    @Flag(help: "With --output FILE.wav or .aiff: render even when the file may not fit the free space.")
    var force = false
}
