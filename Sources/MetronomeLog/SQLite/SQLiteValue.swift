/// A value bound to a statement's parameter or read from a column: SQLite's storage classes but the blob, which the
/// practice log does not use.
///
/// Threads: a value; any thread.
public enum SQLiteValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)

    /// The value, or `.null` for nil.
    public static func optional(_ text: String?) -> SQLiteValue { text.map { .text($0) } ?? .null }
    /// The value, or `.null` for nil.
    public static func optional(_ number: Double?) -> SQLiteValue { number.map { .real($0) } ?? .null }
}
