import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The practice log beside real live runs (docs/practice.md), read back with `metronome log --runs --csv`: two runs
/// at once into one default file, a run killed with SIGKILL, a server lost, and a file that cannot be written — one
/// warning line, the click played on sample for sample.
@Suite("The practice log of live runs", .serialized)
struct PracticeLogLiveTests {
    /// `metronome log --runs --csv` of `file`: its rows but the header, each split into its fields (no field here
    /// holds a comma).
    func runs(_ file: String, environment: [String: String]? = nil) throws -> [[String]] {
        let result = try CommandRunner.run(["log", "--runs", "--csv", "--log-file", file], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Columns of `metronome log --runs --csv`.
    enum Column: Int { case what = 3, lowest = 6, highest = 7, meters = 8, sound = 9, seconds = 10, ending = 11 }

    @Test("Two runs at once into the default file (its folder made): both rows land; --no-log adds none")
    func twoAtOnce() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        var environment = server.clientEnvironment
        environment["XDG_DATA_HOME"] = scratch.file("data")
        environment[Self.interval] = "0.2"
        let ended = try CommandRunner.start(["240", "--bars", "4", "--quiet"], environment: environment)
        let stopped = try CommandRunner.start(["150", "--quiet", "--sound", "beep"], environment: environment)
        usleep(1_500_000)
        stopped.send(SIGINT)
        for run in [ended.wait(), stopped.wait()] {
            #expect(run.status == 0)
            #expect(run.standardError == "")
        }
        let file = scratch.file("data/metronome/practice.sqlite")
        let rows = try runs(file).sorted { $0[Column.what.rawValue] < $1[Column.what.rawValue] }
        try #require(rows.count == 2, "\(rows)")
        #expect(rows.map { $0[Column.what.rawValue] } == ["click 150 4/4", "click 240 4/4"])
        #expect(rows.map { $0[Column.ending.rawValue] } == ["stopped", "ended"])
        #expect(rows.map { $0[Column.highest.rawValue] } == ["150", "240"])
        #expect(rows.map { $0[Column.sound.rawValue] } == ["beep", "wood"])
        #expect(rows.map { $0[Column.meters.rawValue] } == ["4/4", "4/4"])
        // Four bars at 240: 16 beats of 0.25 s (the time between beats heard and the last one's length); the run
        // stopped after 1.5 s heard 3 to 5 beats of 0.4 s.
        let seconds = rows.map { (row: [String]) -> Double in Double(row[Column.seconds.rawValue]) ?? 0 }
        let stoppedRange: Range<Double> = 0.8..<2.5
        let endedRange: Range<Double> = 3.9..<4.1
        #expect(stoppedRange.contains(seconds[0]) && endedRange.contains(seconds[1]), "\(seconds)")
        let quiet = try CommandRunner.run(["240", "--bars", "1", "--quiet", "--no-log"], environment: environment)
        #expect(quiet.status == 0)
        #expect(try runs(file).count == 2)
        var elsewhere = environment
        elsewhere["XDG_DATA_HOME"] = scratch.file("other")
        #expect(
            try CommandRunner.run(["240", "--bars", "1", "--quiet", "--no-log"], environment: elsewhere).status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("other")))
    }

    @Test("A run killed with SIGKILL keeps its row as of the last update, read back as interrupted once stale")
    func killed() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let file = scratch.file("log.sqlite")
        var environment = server.clientEnvironment
        environment[Self.interval] = "0.5"
        let run = try CommandRunner.start(["132", "--quiet", "--log-file", file], environment: environment)
        #expect(try waitUntilPlaying(server))
        usleep(1_000_000)
        run.send(SIGKILL)
        #expect(run.wait().status == 128 + SIGKILL)
        // Three intervals after its last update the row is stale: the run was killed.
        usleep(1_600_000)
        let rows = try runs(file)
        try #require(rows.count == 1, "\(rows)")
        #expect(rows[0][Column.ending.rawValue] == "interrupted")
        #expect(rows[0][Column.highest.rawValue] == "132")
        let seconds = Double(rows[0][Column.seconds.rawValue]) ?? 0
        // Killed 1.25 s or more after it began to play: two updates at least, at 0.5 and 1 s.
        #expect((0.9..<2).contains(seconds), "\(seconds)")
    }

    @Test("The server lost with --no-reconnect: exit 69, the run recorded as lost")
    func lost() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let file = scratch.file("log.sqlite")
        let run = try CommandRunner.start(
            ["120", "--quiet", "--no-reconnect", "--log-file", file], environment: server.clientEnvironment)
        #expect(try waitUntilPlaying(server))
        server.stop()
        #expect(run.wait().status == 69)
        #expect(try runs(file).map { $0[Column.ending.rawValue] } == ["lost"])
    }

    @Test("A file that is not a database: one warning line, exit 0, the recording the render sample for sample")
    func corruptFile() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let corrupt = scratch.file("corrupt.sqlite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 3) }).write(to: URL(fileURLWithPath: corrupt))
        let arguments = ["240", "--bars", "2"]
        let rendered = scratch.file("offline.wav")
        #expect(try CommandRunner.run(arguments + ["--output", rendered]).status == 0)
        let offline = try AudioFileReader.read(path: rendered).channels[0]
        let (result, _) = try playLiveRecorded(arguments + ["--log-file", corrupt], server: server, attempts: 3) {
            recorded in
            let start = onsets(recorded).first ?? 0
            return (holds(recorded, offline), intervals(recorded), intervals(offline), (recorded[start...], offline))
        }
        expectClean(result)
        let warning = "metronome: practice log \(corrupt): file is not a database; not logging\n"
        #expect(result.standardError.hasPrefix(warning), "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: "practice log").count == 2)
        let log = try CommandRunner.run(["log", "--log-file", corrupt])
        #expect(log.status == 65)
        #expect(log.standardError == "metronome: error: practice log \(corrupt): file is not a database\n")
    }

    @Test("A file on a read-only file system: one warning line, exit 0, the file unchanged")
    func readOnlyFile() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let folder = scratch.file("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/log.sqlite"
        #expect(
            try CommandRunner.run(
                ["240", "--bars", "1", "--quiet", "--log-file", file], environment: server.clientEnvironment
            ).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        // As root a file's mode does not stop a write: the folder is mounted read-only in a mount namespace of the
        // run's own.
        let script = "mount --bind -o ro \"$1\" \"$1\" && shift && exec \"$@\""
        let result = try ChildProcess(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c", script, "sh", folder, CommandRunner.executable, "240", "--bars", "1", "--quiet",
                "--log-file", file,
            ],
            environment: server.clientEnvironment
        ).wait()
        #expect(result.status == 0)
        #expect(
            result.standardError
                == "metronome: practice log \(file): unable to open database file (Read-only file system); not logging\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try runs(file).count == 1)
    }

    /// The hidden variable that shortens the log's update interval (`PracticeLogCompanion.intervalVariable`).
    static let interval = "METRONOME_PRACTICE_LOG_INTERVAL"
}
