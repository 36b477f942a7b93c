import Glibc

/// An instant on the host's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds since an unspecified origin (on
/// Linux, boot; the clock stops while the machine is suspended). It is the clock PulseAudio's own `pa_rtclock_now()`
/// reads on Linux, and the one OSC time tags, key presses and taps are converted from to reach a frame.
///
/// Threads: a value type; any thread.
public struct HostTime: Sendable, Hashable, Comparable {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public let nanoseconds: Int64

    /// The instant `nanoseconds` after the clock's origin.
    /// - Parameter nanoseconds: a `CLOCK_MONOTONIC` reading in nanoseconds.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Reads `CLOCK_MONOTONIC` now.
    ///
    /// Threads: any, the render thread included: `clock_gettime` is served by the vDSO without a system call and
    /// allocates nothing.
    /// - Returns: the current instant.
    public static func now() -> HostTime {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return HostTime(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: HostTime, rhs: HostTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
