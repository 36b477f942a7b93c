import MetronomeModel

/// One setting a user gives by name (`--bpm`): its name, its help, and the library's parser of its text. The command
/// line's options are of these kinds (`SettingValue`), their help written here beside the parser and the default
/// (`SettingDefault`) the help shows; the kinds are in `Settings`, in the order of the command line's help.
public protocol SettingKind {
    /// What the text reads as: the parser's value (`String` for a name or a path, which only the whole form can
    /// check: a sound, a file, an accent that needs the meter).
    associatedtype Value: Sendable = String
    /// The option's name, `--bpm`.
    static var name: String { get }
    /// The option's help: its default included where the option is optional (ArgumentParser adds the default of an
    /// option that always has a value, from `SettingValue`'s text).
    static var help: String { get }
    /// Reads a text as the form's checks do (`SettingText`).
    static func read(_ text: String) throws(InvalidValue) -> Value
}

extension SettingKind where Value == String {
    /// A name or a path: the text itself, checked with the rest of the form.
    public static func read(_ text: String) throws(InvalidValue) -> String { text }
}

/// The settings' kinds, one per option (`Settings.BPM` is `--bpm`).
public enum Settings {}

/// A setting as given: its text, and its value when the text reads (`SettingKind.read`). A text that does not read
/// is kept, not refused: the library checks a command's settings together (`SettingForm`), in the order of the help
/// and with the rules between them, and names the first problem in one line, as for every front end (OSC, the web
/// page, a setlist's song).
///
/// `Kind` is left unconstrained in the type itself (the members need `SettingKind`): the command line has a type per
/// option, and a constraint costs each a search of every protocol conformance in the binary when the runtime first
/// builds the type from its name, as ArgumentParser's reflection does at every start.
public struct SettingValue<Kind>: Sendable {
    /// The text as given.
    public let text: String
    /// The text as read, when it reads.
    private let parsed: (any Sendable)?
}

extension SettingValue where Kind: SettingKind {
    /// A setting given as `text`.
    public init(_ text: String) {
        self.text = text
        parsed = try? Kind.read(text)
    }

    /// The text read by `Kind.read`; nil when it does not read.
    public var value: Kind.Value? { parsed as? Kind.Value }

    /// The setting's entry in a form (`SettingForm.init`): its name and its text, or nil when not given.
    public static func entry(_ setting: Self?) -> (String, String?) { (Kind.name, setting?.text) }
}
