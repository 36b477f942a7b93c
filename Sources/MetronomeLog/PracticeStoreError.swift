/// Why the practice log's file cannot be used.
///
/// Threads: a value; any thread.
public enum PracticeStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist (reading only: a writer creates it).
    case missing
    /// SQLite refused: busy past the timeout, read-only, not a database, cannot open…
    case sqlite(SQLiteError)
    /// The file was written by a later build, whose schema this one does not know.
    case newerSchema(found: Int64, known: Int64)

    /// Whether the file is not a practice log this build can read (exit 65 for `metronome log`).
    public var isMalformed: Bool {
        switch self {
        case .missing: false
        case .sqlite(let error): error.isDamaged
        case .newerSchema: true
        }
    }

    /// What is wrong, to follow the file's name: `no such file`, `file is not a database`…
    public var description: String {
        switch self {
        case .missing: "no such file"
        case .sqlite(let error): error.description
        case .newerSchema(let found, let known):
            "schema version \(found) is a later metronome's (this one reads up to \(known))"
        }
    }

    /// Runs `body`, its SQLite error wrapped.
    static func sql<Value>(_ body: () throws(SQLiteError) -> Value) throws(PracticeStoreError) -> Value {
        do { return try body() } catch { throw .sqlite(error) }
    }
}
