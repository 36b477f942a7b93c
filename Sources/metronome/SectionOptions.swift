import ArgumentParser
import MetronomeKit

/// What a single `.metro` section says besides tempo, meter and accents, as options of the click command: swing,
/// gap practice and a tempo trainer. The values follow the pattern language's rules (the library's parsers); only
/// the way they are written suits a command line.
///
/// The root command parses these options wherever they stand, even after a subcommand's name, so every subcommand
/// that could be given them declares this group too (hidden) and says what it does with them: `play` and `chord`
/// refuse them, `arp` swings its steps with `--swing` and refuses the others.
struct SectionOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: """
            Swing of the eighths, 0 to 75 percent (50 = triplet feel, 75 = dotted); 16=P swings the sixteenths, 8=P \
            the eighths. The language's 'swing 8 50%'.
            """)
    var swing: String?

    @Option(
        parsing: .unconditional,
        help: "Gap practice PLAY:MUTE: bars with the click, then bars of silence, over and over (3:1).")
    var gap: String?

    @Option(
        parsing: .unconditional,
        help: """
            Tempo trainer STEP/BARS:LIMIT: add STEP BPM every BARS bars until LIMIT, then hold (+4/2:160; -5/4:60 \
            slows down). The language's 'trainer +4 every 2 bars to 160'.
            """)
    var trainer: String?

    /// The options given: their names and what they set, for refusals.
    var given: [(name: String, what: String)] {
        [
            (swing, "--swing", "the swing"), (gap, "--gap", "the gap practice"),
            (trainer, "--trainer", "the tempo trainers"),
        ].compactMap { $0.0 == nil ? nil : ($0.1, $0.2) }
    }

    /// Refuses the options in a command that has no section of its own.
    /// - Parameter reason: why they do not apply, after the option's name.
    func refuse(_ reason: String) throws(CommandLineError) {
        if let (name, _) = given.first { throw CommandLineError(.usage, "\(name) \(reason)") }
    }

    /// `--swing [8=|16=]PERCENT[%]`: the note value given, else `defaultNote`.
    func checkedSwing(defaultNote: Int = 8) throws(CommandLineError) -> Swing? {
        try parseOption("--swing", swing) { text throws(InvalidValue) in
            try SettingText.swing(text, defaultNote: defaultNote)
        }
    }

    /// `--gap PLAY:MUTE`.
    func checkedGap() throws(CommandLineError) -> GapPractice? { try parseOption("--gap", gap, SettingText.gap) }

    /// `--trainer STEP/BARS:LIMIT`, checked against the tempo it starts from and the bars it plays.
    func checkedTrainer(tempo: BPM, bars: Int?) throws(CommandLineError) -> SectionSettings.Trainer? {
        try parseOption("--trainer", trainer) { text throws(InvalidValue) in
            try SettingText.trainer(text, tempo: tempo, bars: bars)
        }
    }
}
