import MetronomeFiles
import MetronomePatterns

/// Why a setlist could not be read or checked.
public enum SetlistError: Error, Sendable, CustomStringConvertible {
    /// The setlist file is missing, unreadable, not text, or too large for a text file.
    case file(TextFileError)
    /// A statement is malformed, a limit is passed, or a song cannot play: `FILE:LINE:COLUMN: error: …`, the line
    /// and a caret (a song's problem worded as the command line words the same value).
    case malformed(PatternError)

    /// Whether the setlist file itself is missing or unreadable (exit 66), as opposed to malformed (65).
    public var isMissing: Bool {
        if case .file(let error) = self { return error.isMissing }
        return false
    }

    public var description: String {
        switch self {
        case .file(let error): error.description
        case .malformed(let error): error.description
        }
    }
}

extension CommandLineError {
    /// A setlist that could not be read (66 when missing or unreadable, else 65) or checked (65, its own positioned
    /// lines): everything inside the file, a song's missing pattern included, is the file's fault.
    public init(_ error: SetlistError) {
        switch error {
        case .file(let file): self.init(file.isMissing ? .noInput : .dataError, error.description)
        case .malformed(let problem): self.init(.dataError, problem.description, prefixed: false)
        }
    }
}
