import MetronomeModel
import Synchronization

/// The line beats' host times are published on, and time tags are read back through: an output's fitted mapping
/// (`ClockEstimator`) with its small steps taken out.
///
/// The fit is refitted at every timing report of the server, and moves by a few microseconds each time (tens, early
/// in a stream): two beat time tags computed a pass apart then lie on two lines, so a client that adds the last
/// interval to the last tag (the next beat's time, as OSC clients do) asks for a frame up to a few frames off the
/// beat — seen: a chord bundle tagged so played a frame early. Here the line is continuous: at each call it goes on
/// from where it is now and bends toward the fit, aimed to meet it `settle` seconds on (re-aimed at every call, an
/// offset decays as e^(−t / settle) while calls come much more often than `settle`), so tags a beat apart lie on one
/// straight line to a fraction of a microsecond; against a fit moving ±12 µs a report the line stayed within 12 µs of
/// the true time (`SteadyClockLineTests`). A fit farther than `stepBeyond` from it is followed at once (an underrun, a
/// new stream, the first reports of a stream), as is any fit when the line was last bent `settle` or more ago (past
/// its meeting point a straight line runs away from the fit); a time tag more than `settle` ahead is read on the fit.
///
/// Threads: any; a lock of its own, never taken on a render thread.
package final class SteadyClockLine: Sendable {
    /// The line, its anchor's host time kept with its fraction of a nanosecond: a line rounded to the nanosecond at
    /// each call drifted off the fit by the rounding, 200 ns at a call every 10 ms.
    private struct Line {
        var frame: SampleTime
        var host: Int64
        var fraction: Double
        var framesPerSecond: Double

        /// The host time of `frame` on the line, in nanoseconds from `host`.
        func nanoseconds(ofFrame frame: SampleTime) -> Double {
            fraction + Double(frame - self.frame) * 1e9 / framesPerSecond
        }

        var mapping: ClockMapping {
            ClockMapping(
                frame: frame, hostTime: HostTime(nanoseconds: host + Int64(fraction.rounded())),
                framesPerSecond: framesPerSecond)
        }
    }

    /// The line, and the anchor frame of the newest fit it was bent toward (an older one, from a caller that read the
    /// output's fit before another caller read a newer one, is not followed).
    private let line = Mutex<(line: Line, newestFit: SampleTime)?>(nil)
    /// Farther from the fit than this (in nanoseconds, now), the line moves onto the fit at once: the estimator's
    /// least tolerance, beyond which a report is a real move of the output.
    package static let stepBeyond: Double = 250_000
    /// How long the line takes to reach the fit it bends toward, in seconds.
    package static let settle = 4.0

    package init() {}

    /// The line now, or nil before the first fit.
    package var mapping: ClockMapping? { line.withLock { $0?.line.mapping } }

    /// Forgets the line (a new output): the next fit is taken as it is.
    package func reset() {
        line.withLock { $0 = nil }
    }

    /// Moves the line on to `now`, bent toward `fit`, and returns it.
    /// - Parameters:
    ///   - fit: the output's mapping now.
    ///   - now: the host time of the call (the point the line goes on from).
    /// - Returns: the line: through the frame heard `now` at the time the line had for it, with the slope that meets
    ///   the fit `settle` seconds later; or `fit` itself, first, when farther than `stepBeyond`, or when the line was
    ///   last bent `settle` or more before `now` (past its meeting point a line runs away from the fit it aimed at).
    ///   A fit older than one followed before leaves the line as it is.
    package func follow(_ fit: ClockMapping, at now: HostTime) -> ClockMapping {
        line.withLock { state in
            let taken = Line(
                frame: fit.frame, host: fit.hostTime.nanoseconds, fraction: 0, framesPerSecond: fit.framesPerSecond)
            guard let (current, newestFit) = state,
                Double(now.nanoseconds - current.host) < Self.settle * 1e9
            else {
                state = (taken, fit.frame)
                return fit
            }
            guard fit.frame >= newestFit else { return current.mapping }
            let frame =
                current.frame
                + SampleTime(
                    ((Double(now.nanoseconds - current.host) - current.fraction) * current.framesPerSecond / 1e9)
                        .rounded())
            let offset = current.nanoseconds(ofFrame: frame)
            let fitOffset =
                Double(fit.hostTime.nanoseconds - current.host) + Double(frame - fit.frame) * 1e9 / fit.framesPerSecond
            guard abs(fitOffset - offset) <= Self.stepBeyond else {
                state = (taken, fit.frame)
                return fit
            }
            // Where the fit is `settle` seconds on from the line's time for `frame`.
            let meeting = offset + Self.settle * 1e9
            let fitFrame =
                Double(fit.frame) + (meeting - Double(fit.hostTime.nanoseconds - current.host)) * fit.framesPerSecond
                / 1e9
            let whole = offset.rounded()
            let next = Line(
                frame: frame, host: current.host + Int64(whole), fraction: offset - whole,
                framesPerSecond: (fitFrame - Double(frame)) / Self.settle)
            state = (next, fit.frame)
            return next.mapping
        }
    }

    /// The frame heard at `time` (a time tag's): on the line within `settle` of `now`, where beats' host times are,
    /// and on `fit` beyond (past its meeting point the line runs away from the fit).
    /// - Parameters:
    ///   - time: the instant asked about.
    ///   - fit: the output's mapping now.
    ///   - now: the host time of the call.
    package func frame(at time: HostTime, following fit: ClockMapping, now: HostTime) -> SampleTime {
        let steady = follow(fit, at: now)
        return Double(time.nanoseconds - now.nanoseconds) < Self.settle * 1e9
            ? steady.frame(at: time) : fit.frame(at: time)
    }
}
