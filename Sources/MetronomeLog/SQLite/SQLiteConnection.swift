import CSQLite

/// One connection to an SQLite database file through Debian's libsqlite3: opened with a busy timeout (another
/// process writing makes a statement wait, not fail), statements prepared from SQL written in the source, and the
/// schema version (`PRAGMA user_version`). Closed when released.
///
/// Threads: one thread (or serial queue) at a time; the connection is opened in SQLite's multi-thread mode, so it
/// must never be used from two threads at once.
public final class SQLiteConnection {
    /// How the file is opened.
    public enum Mode: Sendable {
        /// Read only; a missing file is an error.
        case readOnly
        /// Read and write; a missing file is an error.
        case readWrite
        /// Read and write, created when missing.
        case readWriteCreate
    }

    private let handle: OpaquePointer
    /// The longest string or row a connection reads or writes.
    public static let maximumValueBytes: Int32 = 1 << 20
    /// The file's path, as given.
    public let path: String

    /// Opens `path`.
    /// - Parameters:
    ///   - path: the database file.
    ///   - mode: read only, or read and write (created when missing).
    ///   - busyTimeout: how long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    ///   - valueLimit: the longest string or row read or written (`maximumValueBytes`; a test writes a longer one).
    /// - Throws: `SQLiteError` of `sqlite3_open_v2` (cannot open) or `sqlite3_busy_timeout`.
    public init(
        path: String, mode: Mode, busyTimeout: Duration = .seconds(2), valueLimit: Int32 = maximumValueBytes
    ) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)
            throw SQLiteError(function: "sqlite3_open_v2", code: code, message: message)
        }
        handle = opened
        self.path = path
        // A value read or written is at most 1 MiB (SQLITE_TOOBIG past it): a damaged or hostile file cannot make a
        // reader allocate a gigabyte for one field. The log's own values are a few dozen bytes.
        sqlite3_limit(opened, SQLITE_LIMIT_LENGTH, valueLimit)
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let timeout = sqlite3_busy_timeout(opened, milliseconds)
        guard timeout == SQLITE_OK else { throw error("sqlite3_busy_timeout", timeout) }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Prepares one statement.
    /// - Parameter sql: SQL written in the source, with `?N` parameters for every value.
    /// - Throws: `SQLiteError` of `sqlite3_prepare_v2` (the file is not a database shows here first).
    public func prepare(_ sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sql.withUTF8Buffer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_prepare_v2(handle, $0.baseAddress, Int32($0.count), &statement, nil)
            }
        }
        guard code == SQLITE_OK, let statement else { throw error("sqlite3_prepare_v2", code) }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Runs SQL written in the source that takes no values and returns no rows (schema changes, transactions,
    /// pragmas), statement after statement.
    /// - Throws: `SQLiteError` of `sqlite3_exec`.
    public func execute(_ sql: StaticString) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql.description, nil, nil, nil)
        guard code == SQLITE_OK else { throw error("sqlite3_exec", code) }
    }

    /// The schema version the file records (`PRAGMA user_version`; 0 for a new file).
    /// - Throws: `SQLiteError` (the file is not a database, for one).
    public func userVersion() throws(SQLiteError) -> Int64 {
        let statement = try prepare("PRAGMA user_version")
        var version: Int64 = 0
        try statement.rows { version = $0.integer(0) ?? 0 }
        return version
    }

    /// Sets the schema version (inside the migration's transaction). A pragma takes no bound parameter, so the
    /// statement is one of those written here, chosen by the version.
    /// - Throws: `SQLiteError`; a version this build has no statement for is `SQLITE_MISUSE`.
    func setUserVersion(_ version: Int) throws(SQLiteError) {
        switch version {
        case 1: try execute("PRAGMA user_version = 1")
        case 2: try execute("PRAGMA user_version = 2")
        case 3: try execute("PRAGMA user_version = 3")
        default:
            throw SQLiteError(
                function: "PRAGMA user_version", code: SQLITE_MISUSE, message: "no statement for version \(version)")
        }
    }

    /// The number of rows the last insert, update or delete changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The row id of the last insert on this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The error `code` of `function`, with the connection's message.
    func error(_ function: String, _ code: Int32) -> SQLiteError {
        // The connection's extended code when it is the same failure (SQLite keeps it for the last call only).
        let extended = sqlite3_extended_errcode(handle)
        return SQLiteError(
            function: function, code: extended & 0xff == code & 0xff ? extended : code,
            message: String(cString: sqlite3_errmsg(handle)))
    }
}
