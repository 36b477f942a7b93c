import MetronomeModel

/// Fits a `ClockMapping` to a live output's timing observations ("frame f was being heard at host time t"), each of
/// which carries some jitter from the sound server's reports.
///
/// The fit is a least-squares line through the last `window` accepted observations. Until they span `minimumSpan`
/// of host time the slope is held at the nominal rate (a short baseline would turn a few microseconds of jitter into
/// hundreds of ppm) and only the offset is averaged; a measured slope more than 1 % off nominal is not believed
/// either. The published anchor is the newest observation's frame, placed on the fitted line.
///
/// While the slope is held, the anchor's host time is the median of what each observation implies rather than their
/// mean (reports stamped late skew a mean, not a median), and no observation is left out until three are in: so a
/// first report stamped late (seen under load: 800 µs) is outvoted at the third report instead of holding the mapping
/// off while the next ones are rejected against it.
///
/// An observation farther from the current mapping than the tolerance — `minimumTolerance`, or four times the fit's
/// RMS residual if that is larger — is left out of the fit (a report the server stamped late). Observations left out
/// in a row mean the output really moved only when they agree with one another (their distances from the mapping
/// within the tolerance of each other: a move shifts every report alike, a loaded machine delays each by its own
/// amount), and how many it takes depends on the side. Earlier than the mapping: `jumpAfter` (a report is stamped
/// late, never early, so only a mapping that is itself late, or an output that moved earlier, puts one there). Later:
/// `lateJumpAfter`, as late stamps come in runs under load (seen: 19 left out in a 20 s Link run, and a restart on
/// three of them moved the clock 2.6 ms: CI at 709da25), and the one move later an output makes, an underrun's
/// silence, is reported and `reset` apart. The fit then starts again from the observations in that agreeing run,
/// their median as below. Observations left out in a row that never agree restart it from their latest
/// `jumpAfter` after `lateJumpAfter` × 4 (a fit that lost its output must not stay lost).
///
/// Beside the fit, `earliest` is the same line moved onto the observation heard earliest against it: the lower envelope
/// of the observations. A server that measures its position and only then stamps the report (PulseAudio: the I/O
/// thread measures, the main thread stamps with `gettimeofday` once it has the answer) stamps every report late by a
/// delay of zero or more, never early; the median carries the typical delay, which grows with the machine's load,
/// while the least-delayed report carries the least. Two fits compared with each other (a lost stream's line and a
/// new stream's, `Reconnector`) agree to within their least delays on `earliest`, and to within their typical delays'
/// difference on `mapping`.
///
/// Memory is allocated in `init`; `observe` and `reset` allocate nothing.
///
/// Threads: a value type; confine each instance to one thread (a live output's mainloop thread).
package struct ClockEstimator {
    private let nominalRate: Double
    private let minimumSpan: Int64
    private let minimumTolerance: Double
    private let jumpAfter: Int
    private let lateJumpAfter: Int
    private var hosts: [Int64]
    private var frames: [Double]
    /// Each stored observation's bound on its delay in seconds (`observe`'s `delayBound`).
    private var bounds: [Double]
    /// Scratch for the median: each observation's host time for the anchor frame.
    private var implied: [Double]
    private var count = 0
    private var next = 0
    private var rejectedInARow = 0
    /// The observations left out in a row, the latest `lateJumpAfter` of them (a ring indexed by `rejectedInARow`):
    /// host time, frame, and distance from the mapping in seconds (positive: later).
    private var rejectedHosts: [Int64]
    private var rejectedFrames: [Double]
    private var rejectedResiduals: [Double]
    private var rejectedBounds: [Double]
    /// The tolerance in seconds for the next observation.
    private var tolerance: Double
    /// The current fit, or nil before the first observation. `reset` keeps it until the next observation.
    package private(set) var mapping: ClockMapping?
    /// `mapping` moved to the observation in the fit heard earliest against it (the lower envelope: each report's
    /// delay taken at its least); nil before the first observation. `reset` keeps it until the next observation.
    package private(set) var earliest: ClockMapping?
    /// How late `earliest` may hear its frames at most, in seconds: the least delay bound among the observations in
    /// the fit (the earliest-heard observation is delayed no more than any other, so no more than the least bound);
    /// infinity when none was given a bound. On a line that holds the true slope.
    package private(set) var earliestDelayBound = Double.infinity
    /// Observations left out (farther from the mapping than the tolerance), fits restarted after `jumpAfter` of them in
    /// a row, and of those restarts the one that moved the mapping farthest: how much later (negative: earlier) the
    /// new fit hears the old one's anchor frame, in seconds. Over the estimator's life (`reset` keeps them), for a
    /// run's account (`metronome --verbose`): a restart on reports stamped late by the machine's load, not on a move of
    /// the output, moves every click placed by the mapping by that much.
    package private(set) var leftOut = 0
    package private(set) var restarts = 0
    package private(set) var largestRestartShift = 0.0

    /// An estimator with nothing observed yet.
    /// - Parameters:
    ///   - nominalRate: the output's rate, used as the slope until the observations span `minimumSpan`.
    ///   - window: how many of the latest accepted observations the fit uses (at least 2).
    ///   - minimumSpan: the host-time span from which the slope is measured rather than assumed.
    ///   - minimumTolerance: the least distance from the mapping at which an observation is left out.
    ///   - jumpAfter: how many agreeing observations left out in a row, earlier than the mapping, restart the fit (at
    ///     least 1).
    ///   - lateJumpAfter: how many agreeing observations left out in a row, later than the mapping, restart the fit
    ///     (at least `jumpAfter`, at most `window`): 10, a second of reports at the 100 ms pace of a live output.
    package init(
        nominalRate: SampleRate, window: Int = 128, minimumSpan: Duration = .seconds(5),
        minimumTolerance: Duration = .microseconds(250), jumpAfter: Int = 3, lateJumpAfter: Int = 10
    ) {
        precondition(
            window >= 2 && jumpAfter >= 1 && lateJumpAfter >= jumpAfter && lateJumpAfter <= window,
            "a clock fit needs a window of two, a jump count of one, and a late jump count between them")
        self.nominalRate = Double(nominalRate.framesPerSecond)
        self.minimumSpan = ClockEstimator.nanoseconds(minimumSpan)
        self.minimumTolerance = Double(ClockEstimator.nanoseconds(minimumTolerance)) / 1e9
        self.jumpAfter = jumpAfter
        self.lateJumpAfter = lateJumpAfter
        tolerance = self.minimumTolerance
        hosts = Array(repeating: 0, count: window)
        frames = Array(repeating: 0, count: window)
        bounds = Array(repeating: .infinity, count: window)
        implied = Array(repeating: 0, count: window)
        rejectedHosts = Array(repeating: 0, count: lateJumpAfter)
        rejectedFrames = Array(repeating: 0, count: lateJumpAfter)
        rejectedResiduals = Array(repeating: 0, count: lateJumpAfter)
        rejectedBounds = Array(repeating: .infinity, count: lateJumpAfter)
    }

    /// Below this many observations in the fit, none is left out: the fit is not yet one to judge them by.
    static let fewestToJudge = 3

    /// Forgets every observation (after an underrun or a pause): the next one starts a new fit. `mapping` keeps its
    /// value until then.
    package mutating func reset() {
        count = 0
        next = 0
        rejectedInARow = 0
        tolerance = minimumTolerance
    }

    /// Adds an observation and refits.
    /// - Parameters:
    ///   - frame: the frame being heard, with its fraction (servers report time in microseconds, not frames).
    ///   - hostTime: when it was being heard.
    ///   - delayBound: how much later than the frame was heard `hostTime` may be at most, in seconds (a report the
    ///     server measured after the request was sent and then stamped: the stamp less the send); infinity when
    ///     nothing bounds it.
    /// - Returns: the mapping after this observation.
    /// - Complexity: O(`window`), and O(`window`²) while the slope is held (the median's insertion sort: at most 128
    ///   values, a few thousand steps, at the reports' pace of at most 100 a second).
    @discardableResult
    package mutating func observe(frame: Double, at hostTime: HostTime, delayBound: Double = .infinity) -> ClockMapping
    {
        var restartedFrom: ClockMapping?
        if count >= Self.fewestToJudge, let mapping {
            let residual = ClockEstimator.residual(frame, hostTime.nanoseconds, mapping)
            if abs(residual) > tolerance {
                let slot = rejectedInARow % lateJumpAfter
                rejectedHosts[slot] = hostTime.nanoseconds
                rejectedFrames[slot] = frame
                rejectedResiduals[slot] = residual
                rejectedBounds[slot] = delayBound
                rejectedInARow += 1
                guard let run = movedRun(latest: residual) else {
                    leftOut += 1
                    return mapping
                }
                // The output moved: the fit starts again from the agreeing run, oldest first.
                let first = rejectedInARow - run
                reset()
                restarts += 1
                restartedFrom = mapping
                for index in first..<(first + run - 1) {
                    let slot = index % lateJumpAfter
                    hosts[next] = rejectedHosts[slot]
                    frames[next] = rejectedFrames[slot]
                    bounds[next] = rejectedBounds[slot]
                    next += 1
                    count += 1
                }
            }
        }
        rejectedInARow = 0
        hosts[next] = hostTime.nanoseconds
        frames[next] = frame
        bounds[next] = delayBound
        next = (next + 1) % hosts.count
        count = min(count + 1, hosts.count)
        let fitted = fit(newestFrame: frame, newestHost: hostTime.nanoseconds)
        mapping = fitted
        if let old = restartedFrom {
            let shift =
                Double(fitted.hostTime.nanoseconds - old.hostTime.nanoseconds) / 1e9
                - Double(fitted.frame - old.frame) / fitted.framesPerSecond
            if abs(shift) > abs(largestRestartShift) { largestRestartShift = shift }
        }
        var squares = 0.0
        var least = Double.infinity
        var leastBound = Double.infinity
        for index in 0..<count {
            let residual = ClockEstimator.residual(frames[index], hosts[index], fitted)
            squares += residual * residual
            least = min(least, residual)
            leastBound = min(leastBound, bounds[index])
        }
        earliestDelayBound = leastBound
        tolerance = max(minimumTolerance, 4 * (squares / Double(count)).squareRoot())
        earliest = ClockMapping(
            frame: fitted.frame,
            hostTime: HostTime(nanoseconds: fitted.hostTime.nanoseconds + Int64((least * 1e9).rounded())),
            framesPerSecond: fitted.framesPerSecond)
        return fitted
    }

    /// How many of the observations left out in a row, the latest last, show that the output moved (nil: none yet,
    /// leave the latest out): the latest `jumpAfter` if they lie earlier than the mapping and agree, the latest
    /// `lateJumpAfter` if later and agreeing, or after `lateJumpAfter` × 4 in a row, the latest `jumpAfter` whatever
    /// they say. Agreeing: each on the latest's side, all within the tolerance of one another.
    private func movedRun(latest: Double) -> Int? {
        if rejectedInARow >= lateJumpAfter * 4 { return jumpAfter }
        let run = latest < 0 ? jumpAfter : lateJumpAfter
        guard rejectedInARow >= run else { return nil }
        var lowest = latest
        var highest = latest
        for index in (rejectedInARow - run)..<rejectedInARow {
            let residual = rejectedResiduals[index % lateJumpAfter]
            guard (residual < 0) == (latest < 0) else { return nil }
            lowest = min(lowest, residual)
            highest = max(highest, residual)
        }
        return highest - lowest <= tolerance ? run : nil
    }

    /// How far an observation lies from a mapping, in seconds (positive: heard later than the mapping says).
    private static func residual(_ frame: Double, _ host: Int64, _ mapping: ClockMapping) -> Double {
        let predicted =
            Double(mapping.frame) + Double(host - mapping.hostTime.nanoseconds) * mapping.framesPerSecond / 1e9
        return (predicted - frame) / mapping.framesPerSecond
    }

    /// The least-squares line through the stored observations, anchored at the newest one's frame; while the slope
    /// is held, the median of the observations' host times for that frame.
    private mutating func fit(newestFrame: Double, newestHost: Int64) -> ClockMapping {
        // Work relative to the newest observation so that the sums keep their precision.
        var meanX = 0.0
        var meanY = 0.0
        var oldestHost = newestHost
        for index in 0..<count {
            meanX += Double(hosts[index] - newestHost) / 1e9
            meanY += frames[index] - newestFrame
            oldestHost = min(oldestHost, hosts[index])
        }
        meanX /= Double(count)
        meanY /= Double(count)
        var rate = nominalRate
        if newestHost - oldestHost >= minimumSpan {
            var sumXX = 0.0
            var sumXY = 0.0
            for index in 0..<count {
                let x = Double(hosts[index] - newestHost) / 1e9 - meanX
                sumXX += x * x
                sumXY += x * (frames[index] - newestFrame - meanY)
            }
            // A slope more than 1 % off nominal is no sound card's crystal: keep the nominal rate rather than trust it.
            let slope = sumXY / sumXX
            if abs(slope - nominalRate) <= nominalRate / 100 { rate = slope }
        }
        let anchor = SampleTime(newestFrame.rounded())
        var seconds = meanX + (Double(anchor) - newestFrame - meanY) / rate
        if rate == nominalRate, newestHost - oldestHost < minimumSpan {
            seconds = medianHostTime(of: Double(anchor), newestHost: newestHost, rate: rate)
        }
        return ClockMapping(
            frame: anchor, hostTime: HostTime(nanoseconds: newestHost + Int64((seconds * 1e9).rounded())),
            framesPerSecond: rate)
    }

    /// The median over the stored observations of the host time each puts `frame` at (seconds from `newestHost`),
    /// at `rate`. Sorts a copy in `implied` by insertion (at most `window` values, no allocation).
    private mutating func medianHostTime(of frame: Double, newestHost: Int64, rate: Double) -> Double {
        for index in 0..<count {
            let value = Double(hosts[index] - newestHost) / 1e9 + (frame - frames[index]) / rate
            var slot = index
            while slot > 0, implied[slot - 1] > value {
                implied[slot] = implied[slot - 1]
                slot -= 1
            }
            implied[slot] = value
        }
        let middle = count / 2
        return count % 2 == 1 ? implied[middle] : (implied[middle - 1] + implied[middle]) / 2
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
