import CSQLite

/// A prepared statement of a `SQLiteConnection`: SQL written in the source, values only through bound parameters (no
/// value is ever spliced into SQL text), stepped row by row, finalized when released.
///
/// Threads: the connection's; never shared between threads.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears the previous run and binds `values` to the parameters `?1`, `?2`, … in order.
    /// - Throws: `SQLiteError` of `sqlite3_bind_*` (more values than parameters, for one).
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            let function: String
            switch value {
            case .null: (code, function) = (sqlite3_bind_null(handle, index), "sqlite3_bind_null")
            case .integer(let number):
                (code, function) = (sqlite3_bind_int64(handle, index, number), "sqlite3_bind_int64")
            case .real(let number):
                (code, function) = (sqlite3_bind_double(handle, index, number), "sqlite3_bind_double")
            case .text(let text):
                code = sqlite3_bind_text(handle, index, text, -1, metronome_sqlite_transient())
                function = "sqlite3_bind_text"
            }
            guard code == SQLITE_OK else { throw connection.error(function, code) }
        }
    }

    /// Runs the statement one step.
    /// - Returns: true when a row is ready to read, false when the statement is done.
    /// - Throws: `SQLiteError` of `sqlite3_step` (busy past the timeout, read-only, not a database…).
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error("sqlite3_step", code)
        }
    }

    /// Binds `values` and runs the statement to its end (an insert, an update).
    /// - Throws: `SQLiteError` of the binding or the step.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Binds `values` and calls `row` for each row, with the statement to read its columns.
    /// - Throws: `SQLiteError` of the binding or a step.
    public func rows(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) -> Void) throws(SQLiteError) {
        try bind(values)
        while try step() { row(self) }
    }

    /// Column `index` of the current row as text; nil when NULL.
    public func text(_ index: Int32) -> String? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL, let bytes = sqlite3_column_text(handle, index) else {
            return nil
        }
        return String(cString: bytes)
    }

    /// Column `index` of the current row as a number; nil when NULL.
    public func double(_ index: Int32) -> Double? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_double(handle, index)
    }

    /// Column `index` of the current row as an integer; nil when NULL.
    public func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }
}
