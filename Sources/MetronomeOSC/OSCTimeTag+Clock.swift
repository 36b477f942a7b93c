/// Exact conversions between time tags and nanosecond counts.
///
/// Two epochs are involved. A time tag counts from the NTP epoch, 1900-01-01T00:00:00Z; Unix time counts from
/// 1970-01-01T00:00:00Z, ``unixEpochOffsetSeconds`` (2,208,988,800) seconds later, leap seconds ignored as both
/// clocks ignore them. A monotonic clock (CLOCK_MONOTONIC) has no calendar epoch at all: the caller samples
/// `CLOCK_REALTIME − CLOCK_MONOTONIC` once and passes that offset, so these functions stay pure.
///
/// Rounding: a fraction becomes the nearest nanosecond (a tie, which only fractions that are odd multiples of 2²²
/// produce, rounds up); a nanosecond becomes the nearest fraction (never a tie). A fraction unit is shorter than half
/// a nanosecond, so nanoseconds → time tag → nanoseconds gives back exactly the value it started from.
extension OSCTimeTag {
    /// Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01): 70 years with 17 leap days.
    public static let unixEpochOffsetSeconds: Int64 = 2_208_988_800

    private static let nanosecondsPerSecond: Int64 = 1_000_000_000
    /// Nanoseconds from the NTP epoch to the end of era 0 (2³² seconds).
    private static let eraNanoseconds: Int64 = (1 << 32) * nanosecondsPerSecond

    /// Nanoseconds since the NTP epoch, 1900-01-01T00:00:00Z, rounded to the nearest nanosecond.
    ///
    /// Every time tag converts: era 0 spans 0 ..< 4,294,967,296,000,000,000 ns, well inside `Int64`.
    public var ntpNanoseconds: Int64 {
        let whole = Int64(seconds) * Self.nanosecondsPerSecond
        let scaled = UInt64(fraction) * UInt64(Self.nanosecondsPerSecond)  // < 2³² · 10⁹ < 2⁶⁴
        return whole + Int64((scaled + (1 << 31)) >> 32)
    }

    /// Nanoseconds since the Unix epoch, 1970-01-01T00:00:00Z, rounded to the nearest nanosecond (negative before
    /// 1970).
    public var unixNanoseconds: Int64 {
        ntpNanoseconds - Self.unixEpochOffsetSeconds * Self.nanosecondsPerSecond
    }

    /// The nanoseconds on a monotonic clock at which this time tag falls.
    ///
    /// - Parameter unixOffsetNanoseconds: Unix time minus monotonic time, in nanoseconds (`CLOCK_REALTIME` minus
    ///   `CLOCK_MONOTONIC`, sampled together).
    /// - Returns: `unixNanoseconds − unixOffsetNanoseconds`.
    /// - Throws: ``OSCError/timeOutOfRange(nanoseconds:)`` when the difference does not fit in `Int64`.
    public func monotonicNanoseconds(unixOffsetNanoseconds: Int64) throws(OSCError) -> Int64 {
        let (result, overflow) = unixNanoseconds.subtractingReportingOverflow(unixOffsetNanoseconds)
        if overflow { throw .timeOutOfRange(nanoseconds: unixNanoseconds) }
        return result
    }

    /// The time tag nearest to a count of nanoseconds since the NTP epoch.
    ///
    /// - Parameter ntpNanoseconds: nanoseconds since 1900-01-01T00:00:00Z.
    /// - Throws: ``OSCError/timeOutOfRange(nanoseconds:)`` outside era 0 (before 1900 or from 2036-02-07T06:28:16Z).
    public init(ntpNanoseconds: Int64) throws(OSCError) {
        guard ntpNanoseconds >= 0, ntpNanoseconds < Self.eraNanoseconds else {
            throw .timeOutOfRange(nanoseconds: ntpNanoseconds)
        }
        let (whole, part) = ntpNanoseconds.quotientAndRemainder(dividingBy: Self.nanosecondsPerSecond)
        // part < 10⁹, so part · 2³² < 2⁶², and the rounded fraction is at most 2³² − 4: no carry into the seconds.
        let fraction =
            ((UInt64(part) << 32) + UInt64(Self.nanosecondsPerSecond / 2)) / UInt64(Self.nanosecondsPerSecond)
        self.init(seconds: UInt32(whole), fraction: UInt32(fraction))
    }

    /// The time tag nearest to a Unix time in nanoseconds.
    ///
    /// - Parameter unixNanoseconds: nanoseconds since 1970-01-01T00:00:00Z.
    /// - Throws: ``OSCError/timeOutOfRange(nanoseconds:)`` outside era 0 (the value given is the Unix one).
    public init(unixNanoseconds: Int64) throws(OSCError) {
        let (ntp, overflow) = unixNanoseconds.addingReportingOverflow(
            Self.unixEpochOffsetSeconds * Self.nanosecondsPerSecond)
        guard !overflow, ntp >= 0, ntp < Self.eraNanoseconds else {
            throw .timeOutOfRange(nanoseconds: unixNanoseconds)
        }
        try self.init(ntpNanoseconds: ntp)
    }

    /// The time tag at which a monotonic clock reading falls.
    ///
    /// - Parameters:
    ///   - monotonicNanoseconds: a reading of the monotonic clock, in nanoseconds.
    ///   - unixOffsetNanoseconds: Unix time minus monotonic time, in nanoseconds (`CLOCK_REALTIME` minus
    ///     `CLOCK_MONOTONIC`, sampled together).
    /// - Throws: ``OSCError/timeOutOfRange(nanoseconds:)`` when the Unix time does not fit in `Int64` or lies
    ///   outside era 0 (the value given is the monotonic one).
    public init(monotonicNanoseconds: Int64, unixOffsetNanoseconds: Int64) throws(OSCError) {
        let (unix, overflow) = monotonicNanoseconds.addingReportingOverflow(unixOffsetNanoseconds)
        if overflow { throw .timeOutOfRange(nanoseconds: monotonicNanoseconds) }
        do {
            try self.init(unixNanoseconds: unix)
        } catch {
            throw .timeOutOfRange(nanoseconds: monotonicNanoseconds)
        }
    }
}
