import Foundation
import MetronomeLog
import MetronomeModel
import MetronomeTestSupport
import Testing

/// The recorder: its row inserted at the start, rewritten every interval and at the end, from its own queue; a file
/// it cannot use reported once; two recorders writing one file at once.
@Suite("MetronomeLog: the recorder and its queue")
struct PracticeRecorderTests {
    /// Waits up to 2 s for the recorder's first row to be in `path`.
    static func waitForRow(_ path: String) -> Bool {
        for _ in 0..<200 {
            if (try? PracticeStore.openForReading(path: path).records().count) == 1 { return true }
            usleep(10_000)
        }
        return false
    }

    let common = Meter.fourFour

    @Test("A run's row: what was heard (tempo range, meters in order), what played, its time and how it ended")
    func wholeRun() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        let failures = Locked<[PracticeStoreError]>([])
        let recorder = PracticeRecorder(.init(path: path, what: "click 120 4/4", sound: "wood")) { error in
            failures.withLock { $0.append(error) }
        }
        let start = PracticeLogFixtures.moment("2026-12-02T09:00:00Z")
        recorder.start(now: start, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        // Beats half a second apart, a pause of 8 s (left out), and one more beat.
        let second: UInt64 = 1_000_000_000
        for (index, tempo) in [120.0, 124, 128, 96].enumerated() {
            recorder.heard(
                tempo: tempo, meter: common, beatLength: 60 / tempo, at: 100 * second + UInt64(index) * second / 2)
        }
        recorder.heard(tempo: 128, meter: .of(7, 8), beatLength: 240 / (128 * 8), at: 102 * second)
        recorder.heard(tempo: 128, meter: common, beatLength: 60 / 128, at: 110 * second)
        recorder.heard(tempo: 128, meter: common, beatLength: 60 / 128, at: 110 * second + second / 2)
        usleep(50_000)
        recorder.finish(.stopped)
        #expect(failures.withLock { $0 } == [])
        let records = try PracticeStore.openForReading(path: path).records()
        try #require(records.count == 1)
        let record = records[0]
        #expect(record.startedAt == start.timeIntervalSince1970)
        #expect(record.localDate == "2026-12-02")
        #expect(record.utcOffset == 9 * 3600)
        #expect(record.what == "click 120 4/4")
        #expect(record.sound == "wood")
        #expect(record.lowestTempo == 96)
        #expect(record.highestTempo == 128)
        #expect(record.meters == "4/4, 7/8")
        #expect(record.ending == .stopped)
        // Four gaps of 0.5 s before the pause, one after it, and the last beat's 0.5 s.
        #expect(record.seconds == 3)
        #expect(record.updateInterval == 60)
    }

    @Test("Every interval the row is rewritten while the run plays, the setlist fields with it")
    func updates() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        var configuration = PracticeRecorder.Configuration(path: path, what: "gig.setlist", sound: "standard")
        configuration.updateInterval = .milliseconds(100)
        let recorder = PracticeRecorder(configuration) { Issue.record("\($0)") }
        recorder.start()
        // Once the row is in, what comes next can only reach the file through an update.
        #expect(Self.waitForRow(path))
        recorder.heard(
            tempo: 100, meter: .of(3, 4), beatLength: 0.6,
            song: .init(index: 0, title: "song", what: "gig.setlist", sound: "standard"))
        recorder.setlistPath = "/sets/gig.setlist"
        usleep(350_000)
        let running = try PracticeStore.openForReading(path: path).records()
        #expect(running.map(\.ending) == [.running])
        #expect(running.first?.seconds == 0.6)
        #expect(running.first?.highestTempo == 100)
        #expect(running.first?.setlistSong == "song")
        #expect(running.first?.setlistPath == "/sets/gig.setlist")
        #expect(running.first?.updateInterval == 0.1)
        recorder.finish(.ended)
        #expect(try PracticeStore.openForReading(path: path).records().map(\.ending) == [.ended])
    }

    @Test(
        "A set's run is a row per song: the first beat of another song closes the row before (switched) with its own time, tempo, meter and sound, and the last row ends as the run does"
    )
    func rowPerSong() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        let recorder = PracticeRecorder(.init(path: path, what: "gig.setlist", sound: "standard")) {
            Issue.record("\($0)")
        }
        recorder.setlistPath = "/sets/gig.setlist"
        recorder.start()
        #expect(Self.waitForRow(path))
        let opener = PracticeRecorder.Song(index: 0, title: "Opener", what: "rock", sound: "wood")
        let ballad = PracticeRecorder.Song(index: 1, title: "Ballad", what: "click 72 3/4", sound: "beep")
        let second: UInt64 = 1_000_000_000
        // Opener: four beats at 120 half a second apart (2 s with the last beat's length).
        for beat in 0..<4 {
            recorder.heard(
                tempo: 120, meter: .of(4, 4), beatLength: 0.5, at: 10 * second + UInt64(beat) * second / 2,
                song: opener)
        }
        // Ballad: three beats at 72 in 3/4, from 3 s on; then back to the opener for two beats.
        for beat in 0..<3 {
            recorder.heard(
                tempo: 72, meter: .of(3, 4), beatLength: 60.0 / 72, at: 13 * second + UInt64(beat) * second,
                song: ballad)
        }
        for beat in 0..<2 {
            recorder.heard(
                tempo: 130, meter: .of(4, 4), beatLength: 0.5, at: 20 * second + UInt64(beat) * second / 2,
                song: opener)
        }
        // The set's fourth song is the opener again, alike in every field but its place: a row of its own.
        let encore = PracticeRecorder.Song(index: 3, title: "Opener", what: "rock", sound: "wood")
        recorder.heard(tempo: 140, meter: .of(4, 4), beatLength: 0.5, at: 30 * second, song: encore)
        recorder.finish(.stopped)
        let rows = try PracticeStore.openForReading(path: path).records().sorted { $0.id! < $1.id! }
        #expect(rows.map(\.setlistSong) == ["Opener", "Ballad", "Opener", "Opener"])
        #expect(rows.map(\.what) == ["rock", "click 72 3/4", "rock", "rock"])
        #expect(rows.map(\.sound) == ["wood", "beep", "wood", "wood"])
        #expect(rows.map(\.ending) == [.switched, .switched, .switched, .stopped])
        #expect(rows.map(\.seconds) == [2, 3, 1, 0.5])
        #expect(rows.map(\.highestTempo) == [120, 72, 130, 140])
        #expect(rows.map(\.meters) == ["4/4", "3/4", "4/4", "4/4"])
        #expect(rows.allSatisfy { $0.setlistPath == "/sets/gig.setlist" })
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.startedAt <= $1.startedAt })
    }

    @Test("A file that is not a database: one failure, nothing written, finishing is harmless")
    func corruptFile() throws {
        let scratch = try Scratch()
        let path = scratch.file("corrupt.sqlite")
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let failures = Locked<[String]>([])
        let recorder = PracticeRecorder(.init(path: path, what: "click", sound: "standard")) { error in
            failures.withLock { $0.append(error.description) }
        }
        recorder.start()
        recorder.heard(tempo: 120, meter: common, beatLength: 0.5)
        recorder.finish(.ended)
        #expect(failures.withLock { $0 } == ["file is not a database"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test("Two recorders on one file at once, each updating every 20 ms: both rows land, neither fails")
    func twoWriters() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        let failures = Locked<[String]>([])
        let recorders = (1...2).map { index in
            var configuration = PracticeRecorder.Configuration(path: path, what: "run \(index)", sound: "standard")
            configuration.updateInterval = .milliseconds(20)
            return PracticeRecorder(configuration) { error in failures.withLock { $0.append(error.description) } }
        }
        for recorder in recorders { recorder.start() }
        for step in 0..<50 {
            for (index, recorder) in recorders.enumerated() {
                recorder.heard(tempo: Double(100 + step + index), meter: common, beatLength: 0.5)
            }
            usleep(10_000)
        }
        recorders[0].finish(.ended)
        recorders[1].finish(.stopped)
        #expect(failures.withLock { $0 } == [])
        let records = try PracticeStore.openForReading(path: path).records()
        #expect(records.map(\.what).sorted() == ["run 1", "run 2"])
        #expect(Set(records.map(\.ending)) == [.ended, .stopped])
        let highest = records.map { (record: PracticeRecord) -> Double in record.highestTempo ?? 0 }.sorted()
        #expect(highest == [149, 150])
    }

    @Test("A file locked by another process: the stop returns at once, the last write gives up after the busy timeout")
    func lockedFile() throws {
        let scratch = try Scratch()
        let path = scratch.file("log.sqlite")
        let failures = Locked<[String]>([])
        var configuration = PracticeRecorder.Configuration(path: path, what: "click", sound: "wood")
        configuration.busyTimeout = .milliseconds(300)
        let recorder = PracticeRecorder(configuration) { error in failures.withLock { $0.append(error.description) } }
        recorder.start()
        recorder.flush()
        recorder.heard(tempo: 120, meter: common, beatLength: 0.5)
        // Another connection (as another process would) holds the write lock.
        let other = try SQLiteConnection(path: path, mode: .readWrite)
        try other.execute("BEGIN EXCLUSIVE")
        let asked = DispatchTime.now().uptimeNanoseconds
        recorder.finish(.ended, wait: false)
        let returned = DispatchTime.now().uptimeNanoseconds
        recorder.flush()
        let written = DispatchTime.now().uptimeNanoseconds
        try other.execute("ROLLBACK")
        #expect(returned - asked < 50_000_000, "finish took \(returned - asked) ns")
        #expect(written - asked >= 300_000_000, "the write gave up after \(written - asked) ns")
        #expect(failures.withLock { $0 } == ["database is locked"])
        // The row stays as inserted: running, read back as interrupted once stale.
        #expect(try PracticeStore.openForReading(path: path).records().map(\.ending) == [.running])
    }
}
