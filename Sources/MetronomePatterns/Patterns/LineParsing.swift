/// A parser of one line at a time (the pattern language, klick's tempo maps, setlists): its errors name the file,
/// the line, the column and the line's text, as every one of them prints them.
protocol LineParsing {
    /// The file's name as the user gave it.
    var file: String { get }
    /// The line being parsed, from 1.
    var line: Int { get }
    /// The line's text.
    var source: String { get }
}

extension LineParsing {
    /// An error at `column` (from 1) of the current line.
    func error(_ message: String, at column: Int) -> PatternError {
        PatternError(file: file, line: line, column: column, message: message, sourceLine: source)
    }

    /// The column just past the line's end: where an error about something missing points.
    var endColumn: Int { source.count + 1 }
}
