import Foundation

/// What the live lane's stall canary (`.ci/stall-canary`, a real-time thread that asks for nothing but to wake every
/// millisecond) saw of the machine over a stretch of time: a stall of our scheduler's thread set against the
/// machine's own, for a failure's message. A stall the canary slept through too stopped the machine; one it did not
/// see was ours to explain.
public enum MachineStalls {
    /// One wake-up of the canary's more than 5 ms late: it slept from `due` to `woken`, in ns on `CLOCK_MONOTONIC`.
    public struct Stall: Equatable, Sendable {
        public var due: Int64
        public var woken: Int64

        public init(due: Int64, woken: Int64) {
            self.due = due
            self.woken = woken
        }
    }

    /// The most of the canary's file read (about 40 000 stalls): a lane's is a few hundred lines.
    static let largestFile = 1 << 20

    /// The canary's file (`METRONOME_STALL_TIMES`, set by `.ci/live-lanes`), nil when the tests run without it.
    public static var path: String? { ProcessInfo.processInfo.environment["METRONOME_STALL_TIMES"] }

    /// The stalls in the canary's `text`, one line each: the time the wake-up was due on `CLOCK_MONOTONIC` in seconds
    /// and how late it came in milliseconds ("812.345678 101.234"); a line that is not two numbers is left out.
    public static func parse(_ text: Substring) -> [Stall] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let due = Double(fields[0]), let late = Double(fields[1]), due >= 0, late >= 0,
                due < 1e9, late < 1e9
            else { return nil }
            let start = Int64((due * 1e9).rounded())
            return Stall(due: start, woken: start + Int64((late * 1e6).rounded()))
        }
    }

    /// One clause for a failure's message on the stretch from `start` to `end` (ns on `CLOCK_MONOTONIC`): how much of
    /// it the canary slept through past its time, read from `path`, or that it saw no stall over 5 ms in it, or that
    /// no canary ran.
    public static func during(start: Int64, end: Int64, path: String? = MachineStalls.path) -> String {
        guard let path else { return "no stall canary beside this run (METRONOME_STALL_TIMES unset)" }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return "the stall canary saw no wake-up over 5 ms late in this lane"
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: largestFile)) ?? Data()
        return during(start: start, end: end, stalls: parse(Substring(String(decoding: data, as: UTF8.self))))
    }

    /// As above, from the canary's `stalls`.
    public static func during(start: Int64, end: Int64, stalls: [Stall]) -> String {
        let stretch = "the \(milliseconds(end - start)) ms to \(seconds(end)) s on the monotonic clock"
        let overlapping = stalls.filter { $0.due < end && $0.woken > start }
        guard !overlapping.isEmpty else {
            return "the stall canary saw no wake-up over 5 ms late in \(stretch)"
        }
        let inside = overlapping.reduce(Int64(0)) { $0 + min($1.woken, end) - max($1.due, start) }
        let each = overlapping.map { "\(milliseconds($0.woken - $0.due)) ms late from \(seconds($0.due)) s" }
        return "the stall canary slept \(milliseconds(inside)) ms of \(stretch) past its time ("
            + each.joined(separator: ", ") + ")"
    }

    private static func milliseconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 10_000) / 100 }
    private static func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds / 1_000_000) / 1000 }
}
