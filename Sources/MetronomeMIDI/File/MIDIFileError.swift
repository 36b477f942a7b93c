/// A malformed Standard MIDI File: the byte offset where reading stopped and one line naming what was expected and
/// what was found there.
public struct MIDIFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Offset from the start of the data (0-based) of the field that is wrong.
    public let offset: Int
    /// What was expected and what was found, as a sentence fragment without a trailing period.
    public let message: String

    /// Creates the error.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// `at byte OFFSET: MESSAGE` — the command line prefixes `FILE: error: `.
    public var description: String { "at byte \(offset): \(message)" }
}
