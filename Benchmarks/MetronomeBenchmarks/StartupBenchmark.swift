import Glibc
import MetronomeFiles
import MetronomeKit

/// Process start → first audio written, for the commands whose first sound a musician waits for, against a
/// private PulseAudio daemon (null sink).
///
/// The start is the parent's CLOCK_MONOTONIC just before `posix_spawn`; the end is `--verbose`'s "first audio written
/// at monotonic N ns" (the first write callback, same clock). Whether that first write already sounds is checked, not
/// assumed: the same command rendered offline gives the frame of the first non-zero sample, and a live run with
/// 0 late events started every event on its frame — so when that frame lies inside the first request (the
/// stream's minimum request, which the server asks for at least), the first write carries the first sound.
enum StartupBenchmark {
    struct Row {
        var command: String
        var firstWriteMilliseconds: [Double]
        var late: Int
        var firstSoundingFrame: Int?
        var minimumRequestFrames: Int?

        /// Whether the first write holds the first non-zero sample: no late event, and its frame inside the first
        /// request.
        var firstWriteSounds: Bool {
            guard let frame = firstSoundingFrame, let request = minimumRequestFrames else { return false }
            return late == 0 && frame < request
        }
    }

    /// The commands measured, as typed after `metronome`.
    static let commands: [[String]] = [["chord", "C"], ["arp", "C"], ["--bpm", "120"]]

    /// Runs each command `runs` times live (stopped with SIGINT after `seconds`, long enough for a slow start to be
    /// measured too), alternating the commands.
    static func run(metronome: String, scratch: String, runs: Int, seconds: Double = 1.5) -> [Row]? {
        guard let server = PrivateServer(directory: scratch + "/pulse") else { return nil }
        defer { server.stop() }
        var rows = commands.map {
            Row(
                command: "metronome " + $0.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "),
                firstWriteMilliseconds: [], late: 0)
        }
        for (index, command) in commands.enumerated() {
            let path = "\(scratch)/startup-\(index).wav"
            rows[index].firstSoundingFrame = firstSoundingFrame(
                metronome: metronome, command: command + ["--duration", "1", "--quiet"], path: path)
            unlink(path)
        }
        for run in 0..<runs {
            for (index, command) in commands.enumerated() {
                let log = "\(scratch)/startup-\(index)-\(run).log"
                let player = Spawned(
                    metronome, command + ["--quiet", "--verbose"], environment: server.environment, errorFile: log)
                usleep(UInt32(seconds * 1_000_000))
                player.signal(SIGINT)
                _ = player.finish()
                let report = LiveBenchmarks.read(log)
                unlink(log)
                if let written = LiveBenchmarks.value(after: "first audio written at monotonic ", in: report) {
                    rows[index].firstWriteMilliseconds.append((Double(written) / 1e9 - player.started) * 1000)
                }
                rows[index].late += LiveBenchmarks.value(after: "late events: ", in: report) ?? 1
                if let request = minimumRequest(in: report) {
                    rows[index].minimumRequestFrames = min(rows[index].minimumRequestFrames ?? request, request)
                }
            }
        }
        return rows
    }

    /// The frame of the first non-zero sample of the command rendered offline, or nil if it never sounds.
    static func firstSoundingFrame(metronome: String, command: [String], path: String) -> Int? {
        guard Measure.spawn(metronome, command + ["--output", path]).status == 0,
            let audio = try? AudioFileReader.read(path: path)
        else { return nil }
        return audio.channels.compactMap { $0.firstIndex { $0 != 0 } }.min()
    }

    /// The stream's minimum request in frames at 48 kHz, from "stream buffer: target T ms, minimum request R ms".
    static func minimumRequest(in report: String) -> Int? {
        guard let line = report.split(separator: "\n").first(where: { $0.contains("minimum request ") }),
            let start = line.firstRange(of: "minimum request ")
        else { return nil }
        let milliseconds = Double(line[start.upperBound...].prefix { $0.isNumber || $0 == "." })
        return milliseconds.map { Int(($0 * 48).rounded(.down)) }
    }
}

extension StartupBenchmark {
    /// Runs the measurement and prints its Markdown table.
    static func printReport(metronome: String, scratch: String, runs: Int) {
        print("\n## Start-up: process start → first audio written (private PulseAudio daemon, null sink)\n")
        guard let rows = run(metronome: metronome, scratch: scratch, runs: runs) else {
            print("(no PulseAudio daemon could be started.)")
            return
        }
        print("| command | median ms | slowest ms | late events | first non-zero frame offline | first write sounds |")
        print("|---|---|---|---|---|---|")
        for row in rows {
            let times = row.firstWriteMilliseconds
            let median = times.isEmpty ? "-" : Measure.format(Measure.median(times), 1)
            let slowest = times.max().map { Measure.format($0, 1) } ?? "-"
            let frame = row.firstSoundingFrame.map(String.init) ?? "never"
            let request = row.minimumRequestFrames.map { " (request ≥ \($0) frames)" } ?? ""
            print(
                "| `\(row.command)` | \(median) | \(slowest) | \(row.late) | \(frame) | "
                    + "\(row.firstWriteSounds ? "yes" : "no")\(request) |")
        }
    }
}
