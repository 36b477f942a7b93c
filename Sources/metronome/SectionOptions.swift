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

    /// The options as the library's form.
    var form: SettingForm { SettingForm([("--swing", swing), ("--gap", gap), ("--trainer", trainer)]) }

    /// Refuses the options in a command that has no section of its own.
    /// - Parameter reason: why they do not apply, after the option's name.
    func refuse(_ reason: String) throws(CommandLineError) {
        if let name = form.given.first { throw CommandLineError(.usage, "\(name) \(reason)") }
    }
}
