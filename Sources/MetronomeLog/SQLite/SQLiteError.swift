import CSQLite

/// A failed SQLite call: the function, SQLite's result code and its message (`sqlite3_errmsg`, or `sqlite3_errstr`
/// when there is no connection).
///
/// Threads: a value; any thread.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, as `sqlite3_prepare_v2`.
    public var function: String
    /// SQLite's extended result code.
    public var code: Int32
    /// What SQLite said.
    public var message: String

    /// An error of `function` with `code` and `message`.
    public init(function: String, code: Int32, message: String) {
        self.function = function
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xff }
    /// Another connection holds the lock longer than the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    /// The file is not an SQLite database, or is damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }
    /// The file is damaged or holds more than this build reads: not a database, corrupt, or a value longer than
    /// `SQLiteConnection.maximumValueBytes` (`SQLITE_TOOBIG`).
    public var isDamaged: Bool { isNotADatabase || primaryCode == SQLITE_TOOBIG }
    /// The file, or its folder, cannot be written (`SQLITE_READONLY`, `SQLITE_PERM`).
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY || primaryCode == SQLITE_PERM }

    /// SQLite's message: what a user reads after the file's name.
    public var description: String { message }
}
