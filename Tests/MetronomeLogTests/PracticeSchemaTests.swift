import Foundation
import MetronomeTestSupport
import Testing

@testable import MetronomeLog

/// The practice log's file: its schema version, the migration of a version 1 file, and the files it refuses.
@Suite("MetronomeLog: the schema, its migrations and the files refused")
struct PracticeSchemaTests {
    @Test("A new file is at version 3, in WAL mode, with the runs table and its index")
    func newFile() throws {
        let scratch = try Scratch()
        let path = scratch.file("new.sqlite")
        let store = try PracticeStore.openForWriting(path: path)
        #expect(try store.connection.userVersion() == 3)
        #expect(try text(store.connection, "PRAGMA journal_mode") == "wal")
        #expect(
            try text(store.connection, "SELECT name FROM sqlite_master WHERE type = 'index'") == "runs_by_local_date")
        // Opening again migrates nothing and keeps the rows.
        var record = PracticeLogFixtures.record(what: "click 120 4/4", date: "2026-11-30")
        try store.insert(&record)
        let again = try PracticeStore.openForWriting(path: path)
        #expect(try again.records() == [record])
    }

    @Test("A version 1 file is upgraded to version 3: its rows kept, the setlist columns added as NULL")
    func migratesVersion1() throws {
        let scratch = try Scratch()
        let path = scratch.file("v1.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWriteCreate)
            try PracticeSchema.migrate(connection, to: 1)
            #expect(try connection.userVersion() == 1)
            try connection.prepare(
                """
                INSERT INTO runs (started_at, local_date, utc_offset, what, lowest_bpm, highest_bpm, meters, sound,
                    seconds, ending, updated_at, update_interval)
                VALUES (1796000000, '2026-11-30', 3600, 'song', 96, 120, '4/4, 7/8', 'wood', 1200.5, 'stopped',
                    1796001200.5, 60)
                """
            ).run()
            // A version 1 file has no setlist column.
            #expect(throws: SQLiteError.self) { try connection.prepare("SELECT setlist_song FROM runs") }
        }
        // `metronome log` reading it upgrades it too.
        let store = try PracticeStore.openForReading(path: path)
        #expect(try store.connection.userVersion() == 3)
        let records = try store.records()
        #expect(
            records == [
                PracticeRecord(
                    id: 1, startedAt: 1_796_000_000, localDate: "2026-11-30", utcOffset: 3600, what: "song",
                    lowestTempo: 96, highestTempo: 120, meters: "4/4, 7/8", sound: "wood", seconds: 1200.5,
                    ending: .stopped, updatedAt: 1_796_001_200.5, updateInterval: 60)
            ])
        #expect(
            try text(store.connection, "SELECT name FROM sqlite_master WHERE type = 'index'") == "runs_by_local_date")
    }

    @Test(
        "A version 2 file is upgraded to version 3: its rows, setlist columns and index kept, and a set's song can end as switched"
    )
    func migratesVersion2() throws {
        let scratch = try Scratch()
        let path = scratch.file("v2.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWriteCreate)
            try PracticeSchema.migrate(connection, to: 2)
            try connection.prepare(
                """
                INSERT INTO runs (started_at, local_date, utc_offset, what, lowest_bpm, highest_bpm, meters, sound,
                    seconds, ending, updated_at, update_interval, setlist_song, setlist_path)
                VALUES (1796000000, '2026-11-30', 3600, 'rock', 96, 120, '4/4', 'wood', 300, 'stopped',
                    1796000300, 60, 'Opener', '/sets/gig.setlist')
                """
            ).run()
            // Version 2 takes no `switched`.
            #expect(throws: SQLiteError.self) {
                try connection.prepare("UPDATE runs SET ending = 'switched'").run()
            }
        }
        let store = try PracticeStore.openForWriting(path: path)
        #expect(try store.connection.userVersion() == 3)
        #expect(
            try store.records() == [
                PracticeRecord(
                    id: 1, startedAt: 1_796_000_000, localDate: "2026-11-30", utcOffset: 3600, what: "rock",
                    setlistSong: "Opener", setlistPath: "/sets/gig.setlist", lowestTempo: 96, highestTempo: 120,
                    meters: "4/4", sound: "wood", seconds: 300, ending: .stopped, updatedAt: 1_796_000_300,
                    updateInterval: 60)
            ])
        #expect(
            try text(store.connection, "SELECT name FROM sqlite_master WHERE type = 'index'") == "runs_by_local_date")
        var record = try store.records()[0]
        record.ending = .switched
        try store.update(record)
        #expect(try store.records().map(\.ending) == [.switched])
    }

    @Test("A later build's file is refused, read or written, with both versions named")
    func newerSchema() throws {
        let scratch = try Scratch()
        let path = scratch.file("v4.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWriteCreate)
            try connection.execute("PRAGMA user_version = 4")
        }
        let expected = PracticeStoreError.newerSchema(found: 4, known: 3)
        #expect(throws: expected) { try PracticeStore.openForWriting(path: path) }
        #expect(throws: expected) { try PracticeStore.openForReading(path: path) }
        #expect(expected.description == "schema version 4 is a later metronome's (this one reads up to 3)")
        #expect(expected.isMalformed)
    }

    @Test("Random bytes are not a database, to read or to write; a missing file is missing to read")
    func notADatabase() throws {
        let scratch = try Scratch()
        let path = scratch.file("random.sqlite")
        var generator = SplitMix(seed: 36)
        let bytes = (0..<8192).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try PracticeStore.openForWriting(path: path)
            Issue.record("random bytes were opened to write")
        } catch {
            #expect(error.isMalformed)
            #expect(error.description == "file is not a database")
        }
        do {
            _ = try PracticeStore.openForReading(path: path)
            Issue.record("random bytes were opened to read")
        } catch {
            #expect(error.isMalformed)
            #expect(error.description == "file is not a database")
        }
        #expect(throws: PracticeStoreError.missing) { try PracticeStore.openForReading(path: scratch.file("none")) }
        #expect(PracticeStoreError.missing.description == "no such file")
        // The random file is left as it was: nothing was written to it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }

    @Test("A value longer than 1 MiB is not read: the file is refused as damaged, no gigabyte allocated")
    func longValue() throws {
        let scratch = try Scratch()
        let path = scratch.file("long.sqlite")
        var record = PracticeLogFixtures.record(what: "song", date: "2026-11-30")
        try PracticeStore.openForWriting(path: path).insert(&record)
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWrite, valueLimit: 4 << 20)
            try connection.prepare("UPDATE runs SET what = printf('%.*c', 1048577, 'x')").run()
        }
        do {
            _ = try PracticeStore.openForReading(path: path).records()
            Issue.record("a value of 1 MiB + 1 byte was read")
        } catch {
            #expect(error.isMalformed)
            #expect(error.description == "string or blob too big")
        }
        let result = try CommandRunner.run(["log", "--runs", "--log-file", path])
        #expect(result.status == 65)
        #expect(result.standardError == "metronome: error: practice log \(path): string or blob too big\n")
    }

    private func text(_ connection: SQLiteConnection, _ sql: StaticString) throws -> String? {
        var value: String?
        try connection.prepare(sql).rows { value = $0.text(0) }
        return value
    }
}
