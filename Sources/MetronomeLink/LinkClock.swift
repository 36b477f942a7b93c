import Glibc
import MetronomeLive

/// Link's clock against ours. Link on Linux keeps time on `CLOCK_MONOTONIC_RAW` in microseconds; every instant of ours
/// (`HostTime`) is on `CLOCK_MONOTONIC`. The two differ by an offset that drifts (NTP slews `CLOCK_MONOTONIC`; on
/// these machines they were ~140 ms apart), so the offset is read afresh for every conversion: both clocks read back
/// to back, which costs three vDSO calls and no system call.
///
/// Threads: any.
public enum LinkClock {
    /// Link's clock now, in microseconds (what `ableton::Link::clock().micros()` reads).
    public static func nowMicros() -> Int64 { raw() / 1000 }

    /// `CLOCK_MONOTONIC_RAW` minus `CLOCK_MONOTONIC`, in nanoseconds, now: the raw clock read between two monotonic
    /// readings, against their mean (the read takes well under a microsecond).
    public static func offsetNanoseconds() -> Int64 {
        let before = HostTime.now().nanoseconds
        let raw = raw()
        let after = HostTime.now().nanoseconds
        return raw - (before + (after - before) / 2)
    }

    /// The Link time (microseconds) of an instant of ours.
    /// - Parameter time: a `CLOCK_MONOTONIC` instant.
    /// - Returns: microseconds on Link's clock, rounded down as Link rounds its own readings.
    public static func micros(of time: HostTime) -> Int64 {
        floorDivide(time.nanoseconds + offsetNanoseconds(), by: 1000)
    }

    /// The instant of ours at which Link's clock reads `micros`.
    /// - Parameter micros: microseconds on Link's clock.
    /// - Returns: a `CLOCK_MONOTONIC` instant.
    public static func hostTime(ofMicros micros: Int64) -> HostTime {
        HostTime(nanoseconds: micros * 1000 - offsetNanoseconds())
    }

    private static func raw() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
