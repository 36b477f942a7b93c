import ArgumentParser
import MetronomeKit

/// The options of a click track. Values are taken as text and checked by the library (`SettingForm`), so every bad
/// value gets a message naming the option, the value and what is allowed (exit 64).
///
/// They are five groups, in the order of the help (tempo, meter and accents, the beat's clicks, the length, the sound),
/// so that a command can show only those it takes and keep the others to refuse with a line of its own: `play`
/// hides the meter and accents (a file sets them), `check` shows the tempo and the beat's clicks.
struct ClickOptions: ParsableArguments {
    @OptionGroup var tempo: TempoOptions
    @OptionGroup var bar: BarOptions
    @OptionGroup var beat: BeatOptions
    @OptionGroup var length: LengthOptions
    @OptionGroup var sound: SoundOptions

    /// The options as the library's form (`SettingForm.clickRequest` checks them).
    var form: SettingForm { Self.form(tempo, bar, beat, length, sound) }

    /// The groups' options as one form, in the order of the help.
    static func form(
        _ tempo: TempoOptions, _ bar: BarOptions, _ beat: BeatOptions, _ length: LengthOptions, _ sound: SoundOptions
    ) -> SettingForm {
        SettingForm([
            entry(tempo.bpm), entry(bar.meter), entry(bar.accent), entry(beat.subdivide),
            entry(beat.countIn), entry(length.bars), entry(length.practice),
            entry(length.randomMute), entry(length.muteSeed), entry(sound.sound),
            entry(sound.soundFile),
        ])
    }
}

/// `--bpm`.
struct TempoOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .setting(Settings.BPM.self))
    var bpm: SettingValue<Settings.BPM>?
}

/// `--meter` and `--accent`: what a pattern file sets for itself.
struct BarOptions: ParsableArguments {
    @Option(help: .setting(Settings.Meter.self))
    var meter: SettingValue<Settings.Meter>?
    @Option(help: .setting(Settings.Accent.self))
    var accent: SettingValue<Settings.Accent>?
}

/// `--subdivide` and `--count-in`.
struct BeatOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .setting(Settings.Subdivide.self))
    var subdivide: SettingValue<Settings.Subdivide>?
    @Option(name: .customLong("count-in"), parsing: .unconditional, help: .setting(Settings.CountIn.self))
    var countIn: SettingValue<Settings.CountIn>?
}

/// `--bars`, and the practice drills: a timer, bars muted at random.
struct LengthOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .setting(Settings.Bars.self))
    var bars: SettingValue<Settings.Bars>?
    @Option(parsing: .unconditional, help: .setting(Settings.Practice.self))
    var practice: SettingValue<Settings.Practice>?
    @Option(name: .customLong("random-mute"), parsing: .unconditional, help: .setting(Settings.RandomMute.self))
    var randomMute: SettingValue<Settings.RandomMute>?
    @Option(name: .customLong("mute-seed"), parsing: .unconditional, help: .setting(Settings.MuteSeed.self))
    var muteSeed: SettingValue<Settings.MuteSeed>?
}

/// `--sound` and `--sound-file`.
struct SoundOptions: ParsableArguments {
    @Option(help: .setting(Settings.Sound.self))
    var sound: SettingValue<Settings.Sound>?
    @Option(name: .customLong("sound-file"), help: .setting(Settings.SoundFile.self))
    var soundFile: SettingValue<Settings.SoundFile>?
}

/// The titles of the help's sections, in the order a musician reaches for them: the click, the length and the
/// output, then live playback, JACK, Link, and last each command's own options.
enum HelpSection {
    static let click = "Tempo, meter and sound"
    static let notes = "Notes"
    static let output = "Length, volume and output"
    static let live = "Live playback"
    static let jack = "JACK (with --driver jack)"
    static let link = "Ableton Link"
}
