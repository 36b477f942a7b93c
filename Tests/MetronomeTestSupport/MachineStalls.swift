import Foundation

/// What the live lane's stall canary (`.ci/stall-canary`: on each CPU a thread at the top real-time priority that asks
/// for nothing but to wake every millisecond) saw of the machine over a stretch of time: a stall of ours set against
/// the machine's own. A stretch every CPU's canary slept through past its time is one in which the machine ran none of
/// its threads (the host had stopped the virtual CPUs, or the kernel held them all); time of ours the canaries did
/// not sleep through is ours to explain.
public enum MachineStalls {
    /// One wake-up of a canary's more than 1 ms late: it slept from `due` to `woken`, in ns on `CLOCK_MONOTONIC`, on
    /// `cpu` (-1 in a file of the single canary before there was one a CPU).
    public struct Stall: Equatable, Sendable {
        public var due: Int64
        public var woken: Int64
        public var cpu: Int

        public init(due: Int64, woken: Int64, cpu: Int = -1) {
            self.due = due
            self.woken = woken
            self.cpu = cpu
        }
    }

    /// A canary's file read: the CPUs it watched (from its "cpus" line; empty when there is none) and its stalls.
    public struct Record: Equatable, Sendable {
        public var cpus: [Int]
        public var stalls: [Stall]

        public init(cpus: [Int], stalls: [Stall]) {
            self.cpus = cpus
            self.stalls = stalls
        }
    }

    /// The most of the canary's file read (about 40 000 stalls): a lane's is a few hundred lines.
    static let largestFile = 1 << 20

    /// The canary's file (`METRONOME_STALL_TIMES`, set by `.ci/live-lanes`), nil when the tests run without it.
    public static var path: String? { ProcessInfo.processInfo.environment["METRONOME_STALL_TIMES"] }

    /// The canary's `text`: a line "cpus 0 1" naming the CPUs watched, then one line a stall: the time the wake-up
    /// was due on `CLOCK_MONOTONIC` in seconds, how late it came in milliseconds and the CPU ("812.345678 101.234 1";
    /// without the CPU, -1). Any other line is left out.
    public static func parse(_ text: Substring) -> Record {
        var cpus: [Int] = []
        var stalls: [Stall] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.first == "cpus" {
                let listed = fields.dropFirst().compactMap { Int($0) }
                if listed.count == fields.count - 1, listed.allSatisfy({ (0..<1024).contains($0) }) { cpus = listed }
                continue
            }
            guard fields.count == 2 || fields.count == 3, let due = Double(fields[0]), let late = Double(fields[1]),
                due >= 0, late >= 0, due < 1e9, late < 1e9
            else { continue }
            let cpu = fields.count == 3 ? Int(fields[2]) : -1
            guard let cpu, cpu >= -1, cpu < 1024 else { continue }
            let start = Int64((due * 1e9).rounded())
            stalls.append(Stall(due: start, woken: start + Int64((late * 1e6).rounded()), cpu: cpu))
        }
        return Record(cpus: cpus, stalls: stalls)
    }

    /// The canary's file at `path`, nil when no canary ran beside this run (`path` nil) or its file cannot be read
    /// (no canary started, or none in this lane).
    public static func read(path: String? = MachineStalls.path) -> Record? {
        guard let path, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: largestFile)) ?? Data()
        return parse(Substring(String(decoding: data, as: UTF8.self)))
    }

    /// How much of the stretch from `start` to `end` (ns on `CLOCK_MONOTONIC`) every CPU's canary in `record` slept
    /// through past its time, in ns: the machine running none of its threads. 0 when the record names no CPUs (a
    /// single canary's file cannot say whether the others ran).
    public static func everyCPUStopped(start: Int64, end: Int64, record: Record) -> Int64 {
        guard !record.cpus.isEmpty, end > start else { return 0 }
        // The stretch cut at every stall's edges; a piece counts when each CPU has a stall over all of it.
        let overlapping = record.stalls.filter { $0.due < end && $0.woken > start }
        let edges = Set([start, end] + overlapping.flatMap { [max($0.due, start), min($0.woken, end)] }).sorted()
        var stopped: Int64 = 0
        for (from, to) in zip(edges, edges.dropFirst()) {
            let everywhere = record.cpus.allSatisfy { cpu in
                overlapping.contains { $0.cpu == cpu && $0.due <= from && $0.woken >= to }
            }
            if everywhere { stopped += to - from }
        }
        return stopped
    }

    /// One clause for a failure's message on the stretch from `start` to `end` (ns on `CLOCK_MONOTONIC`): how much of
    /// it every CPU's canary slept through past its time, read from `path`, and its stalls there, or that it saw no
    /// stall over 1 ms in it, or that no canary ran.
    public static func during(start: Int64, end: Int64, path: String? = MachineStalls.path) -> String {
        guard path != nil else { return "no stall canary beside this run (METRONOME_STALL_TIMES unset)" }
        guard let record = read(path: path) else {
            return "the stall canary saw no wake-up over 1 ms late in this lane"
        }
        return during(start: start, end: end, record: record)
    }

    /// As above, from the canary's `record`.
    public static func during(start: Int64, end: Int64, record: Record) -> String {
        let stretch = "the \(milliseconds(end - start)) ms to \(seconds(end)) s on the monotonic clock"
        let overlapping = record.stalls.filter { $0.due < end && $0.woken > start }
        guard !overlapping.isEmpty else {
            return "the stall canary saw no wake-up over 1 ms late in \(stretch)"
        }
        let each = overlapping.map {
            "\(milliseconds($0.woken - $0.due)) ms late from \(seconds($0.due)) s"
                + ($0.cpu >= 0 ? " on CPU \($0.cpu)" : "")
        }
        let stopped = everyCPUStopped(start: start, end: end, record: record)
        return "the stall canaries of every CPU slept \(milliseconds(stopped)) ms of \(stretch) past their time ("
            + each.joined(separator: ", ") + ")"
    }

    private static func milliseconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 10_000) / 100 }
    private static func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 1_000_000) / 1000 }
}
