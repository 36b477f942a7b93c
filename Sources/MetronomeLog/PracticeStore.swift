import CSQLite
import Glibc

/// The practice log's file: an SQLite database in WAL mode (two metronomes writing at once both land: a writer
/// never blocks a reader, and each waits its turn for the other's few milliseconds of writing, up to the busy
/// timeout), its schema brought to `PracticeSchema.version` when opened, its rows written and read through prepared
/// statements with bound values only.
///
/// Threads: one at a time (the recorder's queue, or the `metronome log` command's thread).
public final class PracticeStore {
    let connection: SQLiteConnection
    /// The file's path.
    public var path: String { connection.path }

    private init(_ connection: SQLiteConnection) { self.connection = connection }

    /// Opens `path` to write runs to it, creating it (but not its folder) when missing, in WAL mode, its schema
    /// upgraded.
    /// - Parameter busyTimeout: how long a write waits for another process's.
    /// - Throws: `PracticeStoreError`: cannot open or write, not a database, a later build's schema.
    public static func openForWriting(path: String, busyTimeout: Duration = .seconds(2)) throws(PracticeStoreError)
        -> PracticeStore
    {
        do { return try opening(path: path, busyTimeout: busyTimeout) } catch {
            throw explained(error, path: path)
        }
    }

    /// `error` with the system's reason when SQLite could not open or write the file and the system says why (a
    /// read-only file system: SQLite only says it is "unable to open database file").
    private static func explained(_ error: PracticeStoreError, path: String) -> PracticeStoreError {
        guard case .sqlite(var failure) = error,
            [SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM].contains(failure.primaryCode)
        else { return error }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        for candidate in [path, folder.isEmpty ? "." : folder] where access(candidate, W_OK) != 0 && errno != ENOENT {
            failure.message += " (\(String(cString: strerror(errno))))"
            return .sqlite(failure)
        }
        return error
    }

    private static func opening(path: String, busyTimeout: Duration) throws(PracticeStoreError) -> PracticeStore {
        let connection = try PracticeStoreError.sql { () throws(SQLiteError) in
            try SQLiteConnection(path: path, mode: .readWriteCreate, busyTimeout: busyTimeout)
        }
        // Read first: a file that is not a database says so here, before any write is tried.
        _ = try PracticeStoreError.sql { () throws(SQLiteError) in try connection.userVersion() }
        try PracticeStoreError.sql { () throws(SQLiteError) in
            // Turning a new file to WAL takes it whole for a moment: with two metronomes starting together on a new
            // file, one got "database is locked" here 1 run in 5, the busy timeout notwithstanding; so the change
            // is tried again every 5 ms for as long as the timeout allows (6 runs in a row then landed both rows).
            let deadline = ContinuousClock.now + busyTimeout
            while true {
                do throws(SQLiteError) {
                    try connection.execute("PRAGMA journal_mode = WAL")
                    break
                } catch  where error.isBusy && ContinuousClock.now < deadline {
                    usleep(5_000)
                }
            }
            // In WAL mode a commit survives the process being killed; only a power cut may lose the last ones.
            try connection.execute("PRAGMA synchronous = NORMAL")
        }
        try PracticeSchema.migrate(connection)
        return PracticeStore(connection)
    }

    /// Opens `path` to read it (`metronome log`): read only, unless its schema is older than this build's, when it
    /// is upgraded first.
    /// - Throws: `PracticeStoreError.missing` when there is no such file; otherwise as `openForWriting`.
    public static func openForReading(path: String) throws(PracticeStoreError) -> PracticeStore {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .missing }
            let reason = String(cString: strerror(errno))
            throw .sqlite(SQLiteError(function: "stat", code: 14, message: reason))
        }
        let connection = try PracticeStoreError.sql { () throws(SQLiteError) in
            try SQLiteConnection(path: path, mode: .readOnly)
        }
        let version = try PracticeStoreError.sql { () throws(SQLiteError) in try connection.userVersion() }
        if version > PracticeSchema.version {
            throw .newerSchema(found: version, known: Int64(PracticeSchema.version))
        }
        if version == PracticeSchema.version { return PracticeStore(connection) }
        let writable = try PracticeStoreError.sql { () throws(SQLiteError) in
            try SQLiteConnection(path: path, mode: .readWrite)
        }
        try PracticeSchema.migrate(writable)
        return PracticeStore(writable)
    }

    /// Inserts `record` as a new row and sets its `id`.
    /// - Throws: `PracticeStoreError`.
    public func insert(_ record: inout PracticeRecord) throws(PracticeStoreError) {
        try PracticeStoreError.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                """
                INSERT INTO runs (started_at, local_date, utc_offset, what, setlist_song, setlist_path, lowest_bpm,
                    highest_bpm, meters, sound, seconds, ending, updated_at, update_interval)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """)
            try statement.run([
                .real(record.startedAt), .text(record.localDate), .integer(Int64(record.utcOffset)), .text(record.what),
                .optional(record.setlistSong), .optional(record.setlistPath), .optional(record.lowestTempo),
                .optional(record.highestTempo), .text(record.meters), .text(record.sound), .real(record.seconds),
                .text(record.ending.rawValue), .real(record.updatedAt), .real(record.updateInterval),
            ])
            record.id = connection.lastInsertedRowID
        }
    }

    /// Inserts `records` in one transaction (an import, a benchmark's generated log): all or none.
    /// - Complexity: O(n), one commit.
    /// - Throws: `PracticeStoreError`; nothing is inserted then.
    public func insert(_ records: [PracticeRecord]) throws(PracticeStoreError) {
        try PracticeStoreError.sql { () throws(SQLiteError) in try connection.execute("BEGIN IMMEDIATE") }
        do throws(PracticeStoreError) {
            for var record in records { try insert(&record) }
            try PracticeStoreError.sql { () throws(SQLiteError) in try connection.execute("COMMIT") }
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Rewrites the row of `record` (inserted before): what changes while it plays (a set's song names its own
    /// `what` and sound once its first beat is heard).
    /// - Throws: `PracticeStoreError`; a record never inserted is `SQLITE_MISUSE`.
    public func update(_ record: PracticeRecord) throws(PracticeStoreError) {
        try PracticeStoreError.sql { () throws(SQLiteError) in
            guard let id = record.id else {
                throw SQLiteError(function: "update", code: 21, message: "the run was never inserted")
            }
            let statement = try connection.prepare(
                """
                UPDATE runs SET setlist_song = ?2, setlist_path = ?3, lowest_bpm = ?4, highest_bpm = ?5, meters = ?6,
                    seconds = ?7, ending = ?8, updated_at = ?9, what = ?10, sound = ?11
                WHERE id = ?1
                """)
            try statement.run([
                .integer(id), .optional(record.setlistSong), .optional(record.setlistPath),
                .optional(record.lowestTempo),
                .optional(record.highestTempo), .text(record.meters), .real(record.seconds),
                .text(record.ending.rawValue), .real(record.updatedAt), .text(record.what), .text(record.sound),
            ])
        }
    }

    /// The runs whose local date is in `dates` (both ends included), oldest first.
    /// - Complexity: O(n) in the runs read; the local date is indexed.
    /// - Throws: `PracticeStoreError`.
    public func records(in dates: PracticeDateRange = .all) throws(PracticeStoreError) -> [PracticeRecord] {
        try PracticeStoreError.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                """
                SELECT id, started_at, local_date, utc_offset, what, setlist_song, setlist_path, lowest_bpm, highest_bpm,
                    meters, sound, seconds, ending, updated_at, update_interval
                FROM runs WHERE local_date BETWEEN ?1 AND ?2 ORDER BY started_at, id
                """)
            var records: [PracticeRecord] = []
            try statement.rows([.text(dates.first), .text(dates.last)]) { row in
                records.append(
                    PracticeRecord(
                        id: row.integer(0), startedAt: row.double(1) ?? 0, localDate: row.text(2) ?? "",
                        utcOffset: Int(row.integer(3) ?? 0), what: row.text(4) ?? "", setlistSong: row.text(5),
                        setlistPath: row.text(6), lowestTempo: row.double(7), highestTempo: row.double(8),
                        meters: row.text(9) ?? "", sound: row.text(10) ?? "", seconds: row.double(11) ?? 0,
                        ending: row.text(12).flatMap(PracticeEnding.init(rawValue:)) ?? .running,
                        updatedAt: row.double(13) ?? 0, updateInterval: row.double(14) ?? 60))
            }
            return records
        }
    }

    /// The time practised and the runs in `dates`.
    /// - Throws: `PracticeStoreError`.
    public func total(in dates: PracticeDateRange) throws(PracticeStoreError) -> PracticeTotal {
        try PracticeStoreError.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                "SELECT COALESCE(SUM(seconds), 0), COUNT(*), MAX(highest_bpm) FROM runs WHERE local_date BETWEEN ?1 AND ?2"
            )
            var total = PracticeTotal(piece: "", seconds: 0, runs: 0, highestTempo: nil)
            try statement.rows([.text(dates.first), .text(dates.last)]) { row in
                total = PracticeTotal(
                    piece: "", seconds: row.double(0) ?? 0, runs: Int(row.integer(1) ?? 0), highestTempo: row.double(2))
            }
            return total
        }
    }

    /// Per song or pattern (`PracticeRecord.piece`), in `dates`: the time practised, the runs and the highest tempo
    /// reached; the most practised first, then by name.
    /// - Complexity: one pass over the runs in `dates` (SQLite's GROUP BY).
    /// - Throws: `PracticeStoreError`.
    public func pieces(in dates: PracticeDateRange) throws(PracticeStoreError) -> [PracticeTotal] {
        try PracticeStoreError.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                """
                SELECT COALESCE(setlist_song, what) AS piece, SUM(seconds) AS total, COUNT(*), MAX(highest_bpm)
                FROM runs WHERE local_date BETWEEN ?1 AND ?2
                GROUP BY piece ORDER BY total DESC, piece
                """)
            var pieces: [PracticeTotal] = []
            try statement.rows([.text(dates.first), .text(dates.last)]) { row in
                pieces.append(
                    PracticeTotal(
                        piece: row.text(0) ?? "", seconds: row.double(1) ?? 0, runs: Int(row.integer(2) ?? 0),
                        highestTempo: row.double(3)))
            }
            return pieces
        }
    }
}
