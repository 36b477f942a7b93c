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
            ("--bpm", tempo.bpm), ("--meter", bar.meter), ("--accent", bar.accent), ("--subdivide", beat.subdivide),
            ("--count-in", beat.countIn), ("--bars", length.bars), ("--practice", length.practice),
            ("--random-mute", length.randomMute), ("--mute-seed", length.muteSeed), ("--sound", sound.sound),
            ("--sound-file", sound.soundFile),
        ])
    }
}

/// `--bpm`.
struct TempoOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Tempo in quarter notes per minute, 1 to 1000, or of another beat: 4.=60 (default 120).")
    var bpm: String?
}

/// `--meter` and `--accent`: what a pattern file sets for itself.
struct BarOptions: ParsableArguments {
    @Option(
        help: """
            Time signature n/d: n from 1 to 64, d one of 1, 2, 4, 8, 16, 32 (default 4/4); n/d=a+b+… groups the \
            beats, accenting each group's first (7/8=2+2+3).
            """)
    var meter: String?

    @Option(help: "One letter per beat: X accent, x normal, o soft, . silent (default: accent on beat one).")
    var accent: String?
}

/// `--subdivide` and `--count-in`.
struct BeatOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Clicks per beat, 1 to 16 (2 adds off-beats, 3 triplets, 4 sixteenths; default 1).")
    var subdivide: String?

    @Option(
        name: .customLong("count-in"), parsing: .unconditional,
        help: "Bars of count-in (a distinct sound) before bar 1, 0 to 16.")
    var countIn: String?
}

/// `--bars`, and the practice drills: a timer, bars muted at random.
struct LengthOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Stop after this many bars.")
    var bars: String?

    @Option(parsing: .unconditional, help: "Practise for 20m, 90s, 1h30m…: the bar ends, a chime sounds, it stops.")
    var practice: String?

    @Option(name: .customLong("random-mute"), parsing: .unconditional, help: "Mute whole bars at random: 0.25 or 25%.")
    var randomMute: String?

    @Option(name: .customLong("mute-seed"), parsing: .unconditional, help: "The random mute's seed (default: printed).")
    var muteSeed: String?
}

/// `--sound` and `--sound-file`.
struct SoundOptions: ParsableArguments {
    @Option(help: "Built-in click sound (see 'metronome sounds').")
    var sound: String?

    @Option(
        name: .customLong("sound-file"),
        help: "Your own samples ACCENT[,NORMAL[,SUBDIVISION]] in any format libsndfile reads (mono or stereo).")
    var soundFile: String?
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
