import ArgumentParser
import MetronomeKit

/// The options of a click track. Values are taken as text and checked by the library (`SettingForm`), so every bad
/// value gets a message naming the option, the value and what is allowed (exit 64).
struct ClickOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Tempo in quarter notes per minute, 1 to 1000, or of another beat: 4.=60 (default 120).")
    var bpm: String?

    @Option(
        help: """
            Time signature n/d: n from 1 to 64, d one of 1, 2, 4, 8, 16, 32 (default 4/4); n/d=a+b+… groups the \
            beats, accenting each group's first (7/8=2+2+3).
            """)
    var meter: String?

    @Option(help: "One letter per beat: X accent, x normal, o soft, . silent (default: accent on beat one).")
    var accent: String?

    @Option(
        parsing: .unconditional,
        help: "Clicks per beat, 1 to 16 (2 adds off-beats, 3 triplets, 4 sixteenths; default 1).")
    var subdivide: String?

    @Option(
        name: .customLong("count-in"), parsing: .unconditional,
        help: "Bars of count-in (a distinct sound) before bar 1, 0 to 16.")
    var countIn: String?

    @Option(parsing: .unconditional, help: "Stop after this many bars.")
    var bars: String?

    @Option(help: "Built-in click sound (see 'metronome sounds').")
    var sound: String?

    @Option(
        name: .customLong("sound-file"),
        help: "Your own samples ACCENT[,NORMAL[,SUBDIVISION]] in any format libsndfile reads (mono or stereo).")
    var soundFile: String?

    /// The options as the library's form (`SettingForm.clickRequest` checks them).
    var form: SettingForm {
        SettingForm([
            ("--bpm", bpm), ("--meter", meter), ("--accent", accent), ("--subdivide", subdivide),
            ("--count-in", countIn), ("--bars", bars), ("--sound", sound), ("--sound-file", soundFile),
        ])
    }
}
