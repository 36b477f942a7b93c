import Glibc
import MetronomeKit

/// How far a reading of `CLOCK_MONOTONIC_RAW` against `CLOCK_MONOTONIC` can be off: one bracket (the monotonic clock,
/// the raw one, the monotonic again, as Link's conversion read it before `RawClockOffset`) against the tightest of a
/// few (`RawClockOffset.now()`), read back to back as fast as the thread runs, idle and with every core loaded.
///
/// Each single bracket is judged against a tightest reading taken right after it that is itself no wider than
/// `RawClockOffset.enough` (its offset within half a microsecond; the two clocks drift apart by at most 500 µs a
/// second, NTP's largest slew, so by under a nanosecond between the two readings). Each tightest reading is judged by
/// its own bound, half the width of the bracket it kept.
enum RawClockBenchmark {
    struct Figures {
        var readings = 0
        /// Readings off by at least 10 µs, 100 µs, 1 ms.
        var overTenMicroseconds = 0
        var overHundredMicroseconds = 0
        var overMillisecond = 0
        var worstNanoseconds: Int64 = 0

        mutating func add(_ error: Int64) {
            readings += 1
            let error = abs(error)
            if error >= 10_000 { overTenMicroseconds += 1 }
            if error >= 100_000 { overHundredMicroseconds += 1 }
            if error >= 1_000_000 { overMillisecond += 1 }
            worstNanoseconds = max(worstNanoseconds, error)
        }
    }

    /// `seconds` of readings on this thread, with `stressors` CPU hogs of stress-ng beside it (0: none); nil when
    /// stress-ng could not be started. Also the share of a core the thread had (its CPU time over the wall time).
    static func run(seconds: Int, stressors: Int) -> (single: Figures, tightest: Figures, share: Double)? {
        let stress =
            stressors > 0
            ? Spawned("stress-ng", ["--cpu", "\(stressors)", "--timeout", "\(seconds + 5)s", "--quiet"]) : nil
        if let stress {
            usleep(500_000)
            var status: Int32 = 0
            guard stress.pid > 0, waitpid(stress.pid, &status, WNOHANG) == 0 else { return nil }
        }
        defer {
            stress?.signal(SIGTERM)
            _ = stress?.finish()
        }
        var single = Figures()
        var tightest = Figures()
        let start = HostTime.now().nanoseconds
        let used = ThreadUsage.now()
        let end = start + Int64(seconds) * 1_000_000_000
        while true {
            let early = HostTime.now().nanoseconds
            let raw = RawClockOffset.nanoseconds(CLOCK_MONOTONIC_RAW)
            let late = HostTime.now().nanoseconds
            let singleOffset = raw - (early + (late - early) / 2)
            let reference = RawClockOffset.tightest {
                (
                    HostTime.now().nanoseconds, RawClockOffset.nanoseconds(CLOCK_MONOTONIC_RAW),
                    HostTime.now().nanoseconds
                )
            }
            tightest.add(reference.width / 2)
            if reference.width <= RawClockOffset.enough { single.add(singleOffset - reference.rawOffset) }
            if reference.monotonic >= end { break }
        }
        let share = Double((ThreadUsage.now() - used).cpuNanoseconds) / Double(HostTime.now().nanoseconds - start)
        return (single, tightest, share)
    }

    static func printReport(seconds: Int) {
        print("\n## The raw clock against ours: one bracket against the tightest of a few\n")
        print(
            "Readings back to back for \(seconds) s on one thread; a single bracket judged against the tightest reading"
                + " right after it, the tightest by half its kept bracket's width.\n")
        print(
            "| load | the thread's share of a core | reading | readings | off ≥ 10 µs | ≥ 100 µs | ≥ 1 ms | worst µs |")
        print("|---|---|---|---|---|---|---|---|")
        for (name, stressors) in [("idle", 0), ("stress-ng --cpu 4 on 2 cores", 4)] {
            guard let (single, tightest, share) = run(seconds: seconds, stressors: stressors) else {
                print("| \(name) | not measured: stress-ng could not be started (`apt-get install stress-ng`) |")
                continue
            }
            for (reading, figures) in [("one bracket", single), ("`RawClockOffset.now()`", tightest)] {
                print(
                    "| \(name) | \(Measure.format(share * 100, 0)) % | \(reading) | \(figures.readings) | "
                        + "\(figures.overTenMicroseconds) | \(figures.overHundredMicroseconds) | "
                        + "\(figures.overMillisecond) | \(Measure.format(Double(figures.worstNanoseconds) / 1000, 1)) |"
                )
            }
        }
    }
}
