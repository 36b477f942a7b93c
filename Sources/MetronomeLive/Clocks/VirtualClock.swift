import MetronomeModel

/// The clock of an offline render: frame 0 is heard at a chosen host time and every later frame follows at exactly
/// the nominal rate (or, for tests, at a rate given). A pure function of its two values, so anything stamped with
/// host times (beat events) renders the same on every run.
///
/// Threads: immutable; any thread.
public final class VirtualClock: FrameClock {
    /// The mapping, fixed at creation: frame 0 at `start`, `sampleRate` frames per second (or those given).
    public let mapping: ClockMapping?

    /// A clock on which frame 0 is heard at `start`.
    /// - Parameters:
    ///   - start: the host time of frame 0 (for instance `HostTime.now()` when a render begins, or 0 for
    ///     reproducible stamps).
    ///   - sampleRate: the render's rate; frames are this many per second of host time.
    public init(start: HostTime = HostTime(nanoseconds: 0), sampleRate: SampleRate) {
        mapping = ClockMapping(frame: 0, hostTime: start, framesPerSecond: Double(sampleRate.framesPerSecond))
    }

    /// A clock on which frame 0 is heard at `start` and frames follow at `framesPerSecond` of host time: off the
    /// nominal rate, it stands for a live output's fitted clock (tests).
    package init(start: HostTime, framesPerSecond: Double) {
        mapping = ClockMapping(frame: 0, hostTime: start, framesPerSecond: framesPerSecond)
    }
}
