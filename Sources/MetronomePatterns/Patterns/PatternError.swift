
/// A malformed pattern or tempo-map file, with the position a person needs to fix it.
public struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file as named on the command line (or a label for text that came from elsewhere).
    public let file: String
    /// 1-based line.
    public let line: Int
    /// 1-based column of the offending text.
    public let column: Int
    /// What is wrong and what is allowed.
    public let message: String
    /// The offending line as written.
    public let sourceLine: String

    /// Creates the error.
    public init(file: String, line: Int, column: Int, message: String, sourceLine: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.sourceLine = sourceLine
    }

    /// `FILE:LINE:COLUMN: error: message`, the line, and a caret under the column (tabs kept so the caret lines up).
    public var description: String {
        let indent = sourceLine.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        return "\(file):\(line):\(column): error: \(message)\n\(sourceLine)\n\(indent)^"
    }
}

/// The lines of a text file as people count them: split at line feeds, Windows' carriage return and line feed, or a
/// lone carriage return; a leading byte-order mark dropped; no extra empty line after a final line break. Shared by
/// every line-oriented reader (.metro, klick maps, bank files).
public func sourceLines(of text: String) -> [String] {
    // "\r\n" is one Character in Swift, so it is matched whole rather than as "\n".
    func isBreak(_ character: Character) -> Bool { character == "\n" || character == "\r\n" || character == "\r" }
    let body = text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
    var lines = body.split(omittingEmptySubsequences: false, whereSeparator: isBreak)
    if let last = body.last, isBreak(last) { lines.removeLast() }
    return lines.map(String.init)
}
