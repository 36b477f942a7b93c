import ArgumentParser
import MetronomeKit
import Synchronization

/// An option of a setting's kind (`Settings.BPM`): ArgumentParser hands its text to the library's parser
/// (`SettingKind.read`), and a text that does not read is kept for the library's check of the whole form, so the
/// message is the library's, in the order of the help, as OSC and the web page get it (`SettingValue`).
extension SettingValue: ExpressibleByArgument where Kind: SettingKind {
    public init?(argument: String) { self.init(argument) }

    /// The help shows a default (`(default: 4)`) as its text.
    public var defaultValueDescription: String { text }
}

extension ArgumentHelp {
    /// A setting's help, written beside its parser and default (`SettingKind.help`).
    static func setting<Kind: SettingKind>(_ kind: Kind.Type) -> ArgumentHelp { ArgumentHelp(kind.help) }
}

/// A setting's entry in a form: its kind's name and its text, or nil when not given (`SettingValue.entry`).
func entry<Kind: SettingKind>(_ setting: SettingValue<Kind>?) -> (String, String?) { SettingValue.entry(setting) }

/// The rules between a command's options, as its `validate()` checks them (`validating`).
///
/// ArgumentParser hands an error thrown by `validate()` on inside its own (which it would print as its own, with
/// exit 1), so the rule's error is kept here whole for `main` to print with its status. And it validates a command
/// before it reports an option it does not know: `main` parses again with the rules off (`checked` false) and
/// reports a rule only when the command line has no such mistake, as when the rules were checked in `run()`.
enum OptionRules {
    static let state = Mutex<(checked: Bool, broken: CommandLineError?)>((true, nil))
}

/// Runs a command's rules between its options for its `validate()` (`OptionRules`).
func validating(_ rules: () throws(CommandLineError) -> Void) throws {
    guard OptionRules.state.withLock({ $0.checked }) else { return }
    do { try rules() } catch {
        OptionRules.state.withLock { $0.broken = error }
        throw error
    }
}
