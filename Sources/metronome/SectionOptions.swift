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
    @Option(parsing: .unconditional, help: .setting(Settings.Swing.self))
    var swing: SettingValue<Settings.Swing>?
    @Option(parsing: .unconditional, help: .setting(Settings.Gap.self))
    var gap: SettingValue<Settings.Gap>?
    @Option(parsing: .unconditional, help: .setting(Settings.Trainer.self))
    var trainer: SettingValue<Settings.Trainer>?

    /// The options as the library's form.
    var form: SettingForm { SettingForm([entry(swing), entry(gap), entry(trainer)]) }

    /// Refuses the options in a command that has no section of its own.
    /// - Parameter reason: why they do not apply, after the option's name.
    func refuse(_ reason: String) throws(CommandLineError) {
        if let name = form.given.first { throw CommandLineError(.usage, "\(name) \(reason)") }
    }
}
