import ArgumentParser
import MetronomeKit

/// The main command's options, declared (hidden) by the subcommands that take few or none of them.
///
/// The argument parser lets a subcommand take its root command's options wherever they stand, and the root's values
/// never reach the subcommand: a subcommand that does not declare them ignores them without a word. Declaring them
/// here lets `check`, `patterns`, `sounds` and `devices` use the ones they mean something for and refuse the rest.
struct RootOptions: ParsableArguments {
    @OptionGroup var click: ClickOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var section: SectionOptions
    @OptionGroup var live: LiveOptions

    /// The options as the library's form, in the order of the main command's help.
    var form: SettingForm { click.form.merging(output.form).merging(section.form).merging(live.form) }

    /// Refuses the first option given that `command` does not take, with one line and exit 64.
    /// - Parameters:
    ///   - command: the subcommand's name, as the user typed it.
    ///   - taken: the options the command uses.
    ///   - note: what the command does take, after the refusal (nothing when empty).
    /// - Throws: `CommandLineError` (64) naming the option and the command.
    func refuse(in command: String, except taken: Set<String> = [], note: String = "") throws(CommandLineError) {
        guard let name = form.given.first(where: { !taken.contains($0) }) else { return }
        throw CommandLineError(.usage, "\(name) does not apply to '\(command)'" + (note.isEmpty ? "" : "; " + note))
    }
}
