import MetronomeFiles
import MetronomeModel
import MetronomePatterns

/// A pattern or tempo-map file (`.metro`, or a klick map), read and expanded on demand.
///
/// Threads: an immutable value; any thread.
public struct PatternDocument: Sendable, Hashable {
    /// The path read: as given, or the shipped pattern a bare name resolved to.
    public let path: String
    /// The name it was asked for (`PatternLibrary.document(named:)`), or the path.
    public let requestedName: String

    /// A document at a path.
    /// - Parameters:
    ///   - path: the file.
    ///   - requestedName: what it was asked for as (default: the path).
    public init(path: String, requestedName: String? = nil) {
        self.path = path
        self.requestedName = requestedName ?? path
    }

    /// Whether a missing file was asked for by a bare name, which no shipped pattern has.
    public var wasBareName: Bool { !path.contains("/") }

    /// The file's text.
    /// - Throws: `PatternDocumentError.file`: missing, unreadable, not text, or too large.
    public func text() throws(PatternDocumentError) -> String {
        do { return try TextFile.read(path: path) } catch { throw .file(error, bareName: wasBareName) }
    }

    /// The parsed and expanded file, in its own language (`PatternLanguage.detect`).
    /// - Parameter tempo: a tempo override.
    /// - Returns: the score.
    /// - Throws: `PatternDocumentError`: the file cannot be read, is malformed, or the override cannot apply.
    public func score(tempo: TempoOverride = .none) throws(PatternDocumentError) -> PatternScore {
        let text = try text()
        do {
            return try PatternLanguage.detect(path: path, text: text).score(text, file: path, tempo: tempo)
        } catch {
            throw .pattern(error)
        }
    }
}

/// Why a pattern document could not be read or expanded.
public enum PatternDocumentError: Error, Sendable, CustomStringConvertible {
    /// Missing, unreadable, not text, or too large; `bareName` when it was asked for by a name with no `/` (and no
    /// shipped pattern has it).
    case file(TextFileError, bareName: Bool)
    /// Malformed (`FILE:LINE:COLUMN: error: …`), or a tempo override that cannot apply.
    case pattern(PatternLoadError)

    /// Whether the file is missing or unreadable (exit 66), as opposed to malformed (65) or refused (64).
    public var isMissing: Bool {
        if case .file(let error, _) = self { return error.isMissing }
        return false
    }

    /// One or more lines: the file error (with a hint when a bare name matched no shipped pattern), or the
    /// positioned problem; an override's reason with its value.
    public var description: String {
        switch self {
        case .file(let error, let bareName):
            var message = error.description
            if case .notFound = error, bareName {
                message += ", and no shipped pattern has this name (see 'metronome patterns')"
            }
            return message
        case .pattern(.malformed(let problem)): return problem.description
        case .pattern(.override(let problem)): return "\(problem.value): \(problem.reason)"
        }
    }
}
