import MetronomeModel

/// When a frame is heard: a straight line between an output's frame counter and the host's monotonic clock, through
/// one exact point (`frame` is heard at `hostTime`) with a slope of `framesPerSecond` frames per second of host time.
///
/// `framesPerSecond` is the output's nominal rate for a virtual clock, or the rate a live output measured against
/// `CLOCK_MONOTONIC` (a sound card's crystal is off by some parts per million). Both directions are closed form from
/// the anchor and rounded once, so neither accumulates error: `frame(at: hostTime(ofFrame: f)) == f` for every `f`
/// within about ±2⁴⁰ frames of the anchor (seven months at 48 kHz). The other way round is exact only to within a
/// frame, since many nanoseconds fall in one frame.
///
/// Threads: a value type; any thread, the render thread included (no allocation, no lock).
public struct ClockMapping: Sendable, Hashable {
    /// The anchor frame, on the output's frame counter (the mixer's `framePosition`).
    public let frame: SampleTime
    /// The instant `frame` is heard: it has left the output and reached the speaker (the stream's latency included).
    public let hostTime: HostTime
    /// Frames per second of host time.
    public let framesPerSecond: Double

    /// A mapping through one point with a given slope.
    /// - Parameters:
    ///   - frame: a frame on the output's frame counter.
    ///   - hostTime: the instant that frame is heard.
    ///   - framesPerSecond: the output's rate measured against `CLOCK_MONOTONIC`, or its nominal rate.
    /// - Precondition: `framesPerSecond` is finite and greater than zero.
    public init(frame: SampleTime, hostTime: HostTime, framesPerSecond: Double) {
        precondition(framesPerSecond.isFinite && framesPerSecond > 0, "a clock mapping needs a positive, finite rate")
        self.frame = frame
        self.hostTime = hostTime
        self.framesPerSecond = framesPerSecond
    }

    /// The instant a frame is heard, rounded to the nearest nanosecond.
    /// - Parameter frame: any frame on the output's frame counter, before or after the anchor.
    /// - Returns: `hostTime + (frame − self.frame) / framesPerSecond`.
    /// - Complexity: O(1).
    public func hostTime(ofFrame frame: SampleTime) -> HostTime {
        let nanoseconds = (Double(frame - self.frame) * 1_000_000_000 / framesPerSecond).rounded()
        return HostTime(nanoseconds: hostTime.nanoseconds + Int64(nanoseconds))
    }

    /// The frame heard at an instant, rounded to the nearest frame.
    /// - Parameter hostTime: any `CLOCK_MONOTONIC` instant, before or after the anchor.
    /// - Returns: `frame + (hostTime − self.hostTime) · framesPerSecond`.
    /// - Complexity: O(1).
    public func frame(at hostTime: HostTime) -> SampleTime {
        let frames = (Double(hostTime.nanoseconds - self.hostTime.nanoseconds) * framesPerSecond / 1_000_000_000)
        return frame + SampleTime(frames.rounded())
    }

    /// The exact (unrounded) frame heard at an instant: where an external clock's beat falls between frames.
    /// - Parameter hostTime: any `CLOCK_MONOTONIC` instant.
    /// - Returns: `frame + (hostTime − self.hostTime) · framesPerSecond`, unrounded.
    /// - Complexity: O(1).
    public func exactFrame(at hostTime: HostTime) -> Double {
        Double(frame) + Double(hostTime.nanoseconds - self.hostTime.nanoseconds) * framesPerSecond / 1_000_000_000
    }
}
