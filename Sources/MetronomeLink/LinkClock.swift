import Glibc
import MetronomeLive

/// Link's clock against ours. Link on Linux keeps time on `CLOCK_MONOTONIC_RAW` in microseconds; every instant of ours
/// (`HostTime`) is on `CLOCK_MONOTONIC`. The offset between them is read afresh for every conversion
/// (`RawClockOffset`, the one place the two clocks meet: the tightest of a few brackets of vDSO reads, no system call).
///
/// Threads: any.
public enum LinkClock {
    /// Link's clock now, in microseconds (what `ableton::Link::clock().micros()` reads).
    public static func nowMicros() -> Int64 { raw() / 1000 }

    /// `CLOCK_MONOTONIC_RAW` minus `CLOCK_MONOTONIC`, in nanoseconds, now (`RawClockOffset`).
    public static func offsetNanoseconds() -> Int64 { RawClockOffset.now().rawOffset }

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

    private static func raw() -> Int64 { RawClockOffset.nanoseconds(CLOCK_MONOTONIC_RAW) }

    private static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
