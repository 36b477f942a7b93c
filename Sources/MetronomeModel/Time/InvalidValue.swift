/// A value a person supplied that the time model or mixer cannot accept. Carries the value as written and a sentence
/// saying what is allowed; the command line prefixes the option name, pattern files prefix the position.
public struct InvalidValue: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offending value, as the user wrote it.
    public let value: String
    /// What was wrong and what is allowed, as a sentence fragment without a trailing period.
    public let reason: String

    /// Creates the error.
    public init(value: String, reason: String) {
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(value): \(reason)" }
}
