/// The practice log's schema, versioned in the file's `PRAGMA user_version` and upgraded by ordered migrations, each
/// in one transaction with the version it brings.
///
/// - Version 1: the `runs` table, one row per live run.
/// - Version 2: the setlist's song and file for each run (NULL until setlists log their songs), and an index on the
///   local date that today's and this week's sums read.
/// - Version 3: the ending `switched` (a set's run is a row per song, each closed as the set moves on): the table is
///   rebuilt with the new check, its rows and index kept.
enum PracticeSchema {
    /// The version this build writes and reads.
    static let version = 3

    /// Brings `connection`'s file from its version to `target`, one migration at a time, each in its own
    /// `BEGIN IMMEDIATE` transaction (so that two processes opening a new file at once migrate it once: the second
    /// reads the version again under the lock and finds nothing to do).
    /// - Throws: `PracticeLogError.newerSchema` for a file of a later build; `SQLiteError` otherwise.
    static func migrate(_ connection: SQLiteConnection, to target: Int = version) throws(PracticeStoreError) {
        let present = try PracticeStoreError.sql { () throws(SQLiteError) in try connection.userVersion() }
        if present > version { throw .newerSchema(found: present, known: Int64(version)) }
        guard present < target else { return }
        for step in Int(present + 1)...target {
            try PracticeStoreError.sql { () throws(SQLiteError) in try connection.execute("BEGIN IMMEDIATE") }
            do throws(PracticeStoreError) {
                let found = try PracticeStoreError.sql { () throws(SQLiteError) in try connection.userVersion() }
                if found > version { throw .newerSchema(found: found, known: Int64(version)) }
                if found < step {
                    try PracticeStoreError.sql { () throws(SQLiteError) in
                        try apply(step, connection)
                        try connection.setUserVersion(step)
                    }
                }
                try PracticeStoreError.sql { () throws(SQLiteError) in try connection.execute("COMMIT") }
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Migration `step`'s statements.
    private static func apply(_ step: Int, _ connection: SQLiteConnection) throws(SQLiteError) {
        switch step {
        case 1:
            try connection.execute(
                """
                CREATE TABLE runs (
                    id INTEGER PRIMARY KEY,
                    started_at REAL NOT NULL,
                    local_date TEXT NOT NULL,
                    utc_offset INTEGER NOT NULL,
                    what TEXT NOT NULL,
                    lowest_bpm REAL,
                    highest_bpm REAL,
                    meters TEXT NOT NULL DEFAULT '',
                    sound TEXT NOT NULL,
                    seconds REAL NOT NULL DEFAULT 0,
                    ending TEXT NOT NULL CHECK (ending IN ('running', 'ended', 'stopped', 'lost')),
                    updated_at REAL NOT NULL,
                    update_interval REAL NOT NULL
                )
                """)
        case 2:
            try connection.execute(
                """
                ALTER TABLE runs ADD COLUMN setlist_song TEXT;
                ALTER TABLE runs ADD COLUMN setlist_path TEXT;
                CREATE INDEX runs_by_local_date ON runs (local_date);
                """)
        case 3:
            // SQLite cannot change a check: a new table, the rows copied, the old one dropped (its index with it).
            try connection.execute(
                """
                CREATE TABLE runs_3 (
                    id INTEGER PRIMARY KEY,
                    started_at REAL NOT NULL,
                    local_date TEXT NOT NULL,
                    utc_offset INTEGER NOT NULL,
                    what TEXT NOT NULL,
                    lowest_bpm REAL,
                    highest_bpm REAL,
                    meters TEXT NOT NULL DEFAULT '',
                    sound TEXT NOT NULL,
                    seconds REAL NOT NULL DEFAULT 0,
                    ending TEXT NOT NULL CHECK (ending IN ('running', 'ended', 'stopped', 'lost', 'switched')),
                    updated_at REAL NOT NULL,
                    update_interval REAL NOT NULL,
                    setlist_song TEXT,
                    setlist_path TEXT
                );
                INSERT INTO runs_3 (id, started_at, local_date, utc_offset, what, lowest_bpm, highest_bpm, meters, sound,
                    seconds, ending, updated_at, update_interval, setlist_song, setlist_path)
                SELECT id, started_at, local_date, utc_offset, what, lowest_bpm, highest_bpm, meters, sound, seconds,
                    ending, updated_at, update_interval, setlist_song, setlist_path FROM runs;
                DROP TABLE runs;
                ALTER TABLE runs_3 RENAME TO runs;
                CREATE INDEX runs_by_local_date ON runs (local_date);
                """)
        default:
            break
        }
    }
}
