import MetronomeModel

/// Settings as a user types them, named as `metronome`'s options (`--bpm`, `--count-in`, a flag's name alone):
/// what a front end (the command line, a form on a page) hands to the application layer to be checked and turned
/// into typed settings (`clickRequest`, `voicing`, `liveSettings`…). The checks, the defaults and the rules between
/// settings (which exclude each other, which a file replaces) live here once; every problem is a `SettingError`
/// naming the setting as the user wrote it.
public struct SettingForm: Sendable {
    /// The settings given, in the order given: a name and its text (empty for a flag).
    public private(set) var entries: [(name: String, text: String)]

    /// A form from named values; a nil text is a setting not given.
    /// - Parameter values: names (`--bpm`) and texts, or nil for a setting left out.
    public init(_ values: [(String, String?)]) {
        entries = values.compactMap { name, text in text.map { (name, $0) } }
    }

    /// A flag's entry for `init`: given (an empty text) or not (nil).
    public static func flag(_ name: String, _ isSet: Bool) -> (String, String?) { (name, isSet ? "" : nil) }

    /// The names of the settings given, in order.
    public var given: [String] { entries.map(\.name) }

    /// The text given for `name`, or nil.
    public subscript(name: String) -> String? { entries.first { $0.name == name }?.text }

    /// Whether `name` was given (a flag set, or any value).
    public func has(_ name: String) -> Bool { self[name] != nil }

    /// Sets (or, with nil, removes) the text of `name`.
    public mutating func set(_ name: String, _ text: String?) {
        entries.removeAll { $0.name == name }
        if let text { entries.append((name, text)) }
    }

    /// The form with `other`'s entries after its own.
    public func merging(_ other: SettingForm) -> SettingForm {
        var form = self
        form.entries += other.entries
        return form
    }

    /// `name`'s value read by `parser` (a `SettingText` function, `BPM(parsing:)`…), or nil when not given.
    /// - Throws: `SettingError` `NAME TEXT: REASON` (the whole text given, even when the parser named a part).
    public func value<Value>(_ name: String, _ parser: (String) throws(InvalidValue) -> Value) throws(SettingError)
        -> Value?
    {
        guard let text = self[name] else { return nil }
        return try Self.parse(name, text, parser)
    }

    /// `name`'s value, or `fallback`'s (given as text, and read by the same parser) when not given.
    public func value<Value>(
        _ name: String, default fallback: String, _ parser: (String) throws(InvalidValue) -> Value
    ) throws(SettingError) -> Value {
        try Self.parse(name, self[name] ?? fallback, parser)
    }

    /// Reads `text`, given for `name`, with `parser`.
    public static func parse<Value>(_ name: String, _ text: String, _ parser: (String) throws(InvalidValue) -> Value)
        throws(SettingError) -> Value
    {
        do { return try parser(text) } catch { throw SettingError(name, "\(text): \(error.reason)") }
    }

    /// Refuses two settings given together: `A and B cannot be used together; choose one`.
    public func exclusive(_ first: String, _ second: String) throws(SettingError) {
        if has(first), has(second) { throw SettingError("\(first) and \(second) cannot be used together; choose one") }
    }

    /// Refuses the first of `names` that was given: `NAME REASON`.
    public func refuse(_ names: [String], _ reason: String) throws(SettingError) {
        if let name = names.first(where: has) { throw SettingError(name, reason) }
    }
}

/// A setting that cannot be taken: a bad value, or settings that exclude each other. One line, naming the setting as
/// the user wrote it (the command line exits 64 with it).
public struct SettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String

    /// An error with its whole message.
    public init(_ message: String) { description = message }

    /// `NAME PROBLEM`: a setting and what is wrong with it (`--bpm 0: tempo must be …`).
    public init(_ name: String, _ problem: String) { description = "\(name) \(problem)" }
}
