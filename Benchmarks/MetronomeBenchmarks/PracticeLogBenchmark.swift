import Foundation
import Glibc
import MetronomeLog

/// `metronome log` over a practice log of 50 000 runs (issue 36: "50 000 logged sessions still summarise in under
/// 100 ms"): the file generated in one transaction, two years of runs over 40 songs and patterns, then the summary
/// timed in the process (`PracticeSummary.read`: the queries alone) and as a user runs it (the binary, start to exit,
/// with its CPU time and peak RSS).
enum PracticeLogBenchmark {
    /// The runs in the generated file.
    static let count = 50_000

    /// Writes the file at `path`: `count` runs, seeded, one every ~21 minutes over two years up to `end`.
    static func generate(path: String, end: Date) throws {
        let store = try PracticeStore.openForWriting(path: path)
        var state: UInt64 = 36
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let span = 2 * 365 * 86_400.0
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let records = (0..<count).map { index in
            let start = end.timeIntervalSince1970 - span + span * Double(index) / Double(count)
            let tempo = Double(60 + next() % 120)
            let seconds = Double(30 + next() % 1800)
            let date = Date(timeIntervalSince1970: start)
            return PracticeRecord(
                startedAt: start, localDate: PracticeDateRange.day(of: date, in: zone),
                utcOffset: zone.secondsFromGMT(for: date), what: "pattern-\(next() % 40).metro",
                lowestTempo: tempo, highestTempo: tempo + Double(next() % 20), meters: "4/4", sound: "standard",
                seconds: seconds, ending: .ended, updatedAt: start + seconds, updateInterval: 60)
        }
        try store.insert(records)
    }

    /// Runs the part: prints its Markdown table.
    static func run(metronome: String, scratch: String, runs: Int) throws {
        let path = "\(scratch)/practice.sqlite"
        let now = Date()
        let made = Measure.now()
        try generate(path: path, end: now)
        let generation = Measure.now() - made
        var size = stat()
        stat(path, &size)
        print("\n## The practice log: `metronome log` over \(count) runs\n")
        print(
            "The file: \(count) runs over two years, 40 patterns, written in one transaction in "
                + "\(Measure.format(generation)) s, \(Measure.format(Double(size.st_size) / 1_048_576, 1)) MB.\n")
        print("| what | wall ms (median of \(runs)) | CPU ms | peak RSS MB |")
        print("|---|---|---|---|")
        var inProcess: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<runs {
            let start = Measure.now()
            let cpuStart = Measure.now(CLOCK_PROCESS_CPUTIME_ID)
            let store = try PracticeStore.openForReading(path: path)
            _ = try PracticeSummary.read(store, now: now, timeZone: .current)
            inProcess.append(Measure.now() - start)
            cpu.append(Measure.now(CLOCK_PROCESS_CPUTIME_ID) - cpuStart)
        }
        print(
            "| `PracticeSummary.read` in the process (open, today, week, per pattern) | "
                + "\(Measure.format(Measure.median(inProcess) * 1000, 1)) | "
                + "\(Measure.format(Measure.median(cpu) * 1000, 1)) | - |")
        for arguments in [["log"], ["log", "--json"], ["log", "--runs", "--csv"]] {
            let costs = (0..<runs).map { _ in Measure.spawn(metronome, arguments + ["--log-file", path]) }
            precondition(costs.allSatisfy { $0.status == 0 }, "metronome \(arguments) failed")
            let wall = Measure.median(costs.map(\.wallSeconds)) * 1000
            let cpu = Measure.median(costs.map(\.cpuSeconds)) * 1000
            let rss = Double(costs.map(\.peakResidentKilobytes).max() ?? 0) / 1024
            print(
                "| `metronome \(arguments.joined(separator: " "))` (the process, start to exit) | "
                    + "\(Measure.format(wall, 1)) | \(Measure.format(cpu, 1)) | \(Measure.format(rss, 1)) |")
        }
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
