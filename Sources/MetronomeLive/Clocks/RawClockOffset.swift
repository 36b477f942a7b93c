import Glibc

/// Where `CLOCK_MONOTONIC_RAW` stands against `CLOCK_MONOTONIC` (ours, `HostTime`) now: the one place the two clocks
/// meet. Link and JACK keep time on the raw clock; the two differ by an offset that drifts (NTP slews the monotonic
/// clock; on these machines they were ~140 ms apart), so it is read afresh for every conversion.
///
/// A reading is a bracket: the monotonic clock, the raw clock, the monotonic clock again, the raw reading set against
/// the bracket's middle. A thread preempted inside a bracket (the scheduler, or the hypervisor taking the virtual CPU)
/// widens it, and the offset is off by up to half its width. Measured on the 2-core machine (`metronome-bench`'s
/// `rawclock` part, docs/benchmarks.md), one bracket was off by 10 µs or more about once in 20 000 readings idle, and
/// with every core loaded by a millisecond or more once in about 58 000, at worst 11 ms. So up to `attempts`
/// brackets are read and the tightest kept; the first no wider than `enough` ends the reading. Over 113 million
/// readings, idle and loaded, the tightest kept was never wider than 1 µs. `tightest` takes any clock for the middle
/// reading: PulseAudio's timing reports are stamped on `CLOCK_REALTIME` and read against ours the same way.
///
/// Threads: any, the real-time ones included: vDSO reads, no system call, no allocation.
package enum RawClockOffset {
    /// The most brackets one reading takes.
    package static let attempts = 4
    /// A bracket this narrow is taken at once: its offset is within half of it.
    package static let enough: Int64 = 1_000

    /// `CLOCK_MONOTONIC` at the end of the reading, and `CLOCK_MONOTONIC_RAW` minus `CLOCK_MONOTONIC`, in
    /// nanoseconds, from the tightest bracket.
    package static func now() -> (monotonic: Int64, rawOffset: Int64) {
        let reading = tightest {
            (HostTime.now().nanoseconds, nanoseconds(CLOCK_MONOTONIC_RAW), HostTime.now().nanoseconds)
        }
        return (reading.monotonic, reading.rawOffset)
    }

    /// The reading over brackets from `read` (monotonic, raw, monotonic, in nanoseconds): the offset of the tightest
    /// of up to `attempts` and that bracket's width (the offset is within half of it), stopping at the first no wider
    /// than `enough`, and the last monotonic reading taken. Separate from the clocks so that a test can hand it
    /// preempted brackets.
    package static func tightest(_ read: () -> (early: Int64, raw: Int64, late: Int64)) -> (
        monotonic: Int64, rawOffset: Int64, width: Int64
    ) {
        var best = (width: Int64.max, rawOffset: Int64(0))
        var last: Int64 = 0
        for _ in 0..<attempts {
            let (early, raw, late) = read()
            last = late
            let width = late - early
            if width < best.width { best = (width, raw - (early + width / 2)) }
            if width <= enough { break }
        }
        return (last, best.rawOffset, best.width)
    }

    /// `clock` now, in nanoseconds.
    package static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
