import MetronomeModel

/// A MIDI clock's tempo and phase from its ticks (status F8, 24 a quarter note) as they arrived, on the output's
/// frames: the filter of the MIDI clock follower.
///
/// **The filter.** A least-squares line, frame = a + period · tick, through the last `window` ticks (96 by default:
/// four beats). Each tick is checked against the line before it joins: a tick within `threshold(forTick:)` of its
/// predicted frame joins the line; one further off waits for the next tick, which decides what it was:
///
/// - the next is on the line again: the one off it was a late or early tick (a USB burst), left out (`outliers`);
/// - both are on the line a whole number of ticks on: ticks were lost in between (`dropped`), and both join;
/// - the next is on the line, on the tick due or further on: the one off it was no tick of the clock's (a stray F8,
///   a flood's first), left out, and the ticks between, if any, were lost;
/// - neither, the two spaced alike from the last tick on the line: the tempo changed (`changes`): the line starts
///   again from that tick and the two new ones, and grows back to `window` ticks. Spaced unlike, the one off the
///   line is left out and the next waits in its place; two such in a row are a jump of the clock's phase, and the
///   line starts again from them alone.
///
/// The first `noiseTicks` (12) all join: they measure the sender's jitter. After that, the threshold is four standard deviations of the line's prediction for that tick (the sender's jitter, measured
/// as the residual of the last full line, times the prediction's standard error for the window), and never under
/// `floorSeconds` (0.3 ms): clean input (`jack_midi_clock` writes every tick on its frame) restarts the line on any
/// change above it. Against a second-order delay-locked loop (Ardour's) the line has no loop to settle: it never
/// overshoots a tempo step, and its noise falls with the window (the phase at the line's end has a standard error of
/// about 2σ/√n, 0.12 ms at n = 96 for ±1 ms uniform jitter) where a loop trades bandwidth for it. Against a mean of
/// the last intervals (Hydrogen's ten) it keeps the phase, not only the tempo. A steady ramp shows as a string of
/// changes: the line follows it in short pieces.
///
/// Counting is by the stream's tick index (every F8 since the first, the dropped ones included); where the song is
/// comes from Start, Continue, Stop and Song Position Pointer (`MIDIClockTransport`). Ticks closer than
/// `minimumInterval` to the one before (faster than 1000 BPM: a flood, or two clocks merged on one port) are left out
/// and counted (`tooFast`).
///
/// A pure value: tests and benchmarks feed it the frames they choose. Threads: any, one at a time.
public struct MIDIClockEstimator: Sendable {
    /// Ticks of MIDI clock in a quarter note.
    public static let ticksPerQuarter = 24
    /// Standard deviations of a tick's prediction within which it joins the line.
    public static let deviations = 4.0
    /// Seconds without a tick (plus four ticks) after which a clock counts as silent: the line starts again from
    /// the next tick (`tickAfterSilence(at:)`), and a follower holds meanwhile.
    public static let silenceSeconds = 0.15
    /// The least threshold, in seconds, whatever the jitter measured.
    public static let floorSeconds = 0.0003

    /// The straight line the ticks lie on: tick `index` is heard at `frame`, and each tick lasts `period` frames.
    public struct Line: Sendable, Hashable {
        /// A tick of the stream (its index since the first F8).
        public var index: Int64
        /// The exact output frame of `index` on the line.
        public var frame: Double
        /// Frames per tick.
        public var period: Double

        /// The exact frame of a tick on the line. O(1).
        public func frame(ofTick tick: Double) -> Double { frame + (tick - Double(index)) * period }

        /// The (fractional) tick on the line at an exact frame. O(1).
        public func tick(atFrame exact: Double) -> Double { Double(index) + (exact - frame) / period }

        /// The tempo of the line, in quarter notes per minute, at `framesPerSecond`.
        public func quarterNotesPerMinute(framesPerSecond: Double) -> Double {
            60 * framesPerSecond / (period * Double(MIDIClockEstimator.ticksPerQuarter))
        }
    }

    /// What happened to the ticks so far.
    public struct Counts: Sendable, Hashable {
        /// F8s received.
        public var ticks = 0
        /// Ticks missing between two that arrived (their indices were skipped).
        public var dropped = 0
        /// Ticks off the line between two on it, left out of the fit.
        public var outliers = 0
        /// Tempo changes: the line started again.
        public var changes = 0
        /// Ticks closer than `minimumInterval` to the one before, left out.
        public var tooFast = 0

        /// The counts given.
        public init(ticks: Int = 0, dropped: Int = 0, outliers: Int = 0, changes: Int = 0, tooFast: Int = 0) {
            (self.ticks, self.dropped, self.outliers) = (ticks, dropped, outliers)
            (self.changes, self.tooFast) = (changes, tooFast)
        }
    }

    /// Frames per second of the output the frames are on.
    public let framesPerSecond: Double
    /// The most ticks in the line.
    public let window: Int
    /// Ticks closer than this to the one before (frames: 2.5 ms, a tick at 1000 BPM) are left out.
    public let minimumInterval: Double
    /// The line fitted to the ticks so far; nil before two ticks.
    public private(set) var line: Line?
    /// The stream's index of the last tick that joined the line (or arrived first); nil before the first.
    public private(set) var lastIndex: Int64?
    /// What happened to the ticks.
    public private(set) var counts = Counts()
    /// The sender's jitter: the standard deviation, in frames, of the residuals of the last line with at least
    /// `noiseTicks` ticks; 0 before one.
    public private(set) var jitter: Double = 0
    /// Whether a line of `noiseTicks` has measured `jitter`: until then every tick joins the line.
    public private(set) var jitterMeasured = false

    /// The ticks of the line, oldest first: their indices and exact frames.
    private var ticks: [(index: Int64, frame: Double)] = []
    /// The fit's mean index (relative to `lastIndex`) and its sum of squared deviations, for the prediction's error.
    private var meanX = 0.0
    private var sxx = 0.0
    /// A tick off the line, waiting for the next to say what it was.
    private var pending: Double?
    /// Ticks left out in a row since one last joined the line (a jump shows as two).
    private var offInARow = 0
    /// The frame the last F8 arrived on (kept or not).
    private var lastArrival: Double?
    /// Lines with at least this many ticks measure the jitter.
    static let noiseTicks = 12

    /// An estimator for an output at `framesPerSecond`.
    /// - Parameters:
    ///   - framesPerSecond: the output's rate (frames per second).
    ///   - window: the most ticks in the line (at least 3; 96 by default, four beats).
    public init(framesPerSecond: Double, window: Int = 96) {
        self.framesPerSecond = framesPerSecond
        self.window = max(3, window)
        minimumInterval = framesPerSecond * 60 / (BPM.maximum.quarterNotesPerMinute * Double(Self.ticksPerQuarter))
    }

    /// The line's tempo, in quarter notes per minute; nil before two ticks.
    public var quarterNotesPerMinute: Double? { line?.quarterNotesPerMinute(framesPerSecond: framesPerSecond) }

    /// Ticks in the line now.
    public var lineTicks: Int { ticks.count }

    /// How far off its predicted frame a tick may arrive and still join the line, in frames.
    /// - Parameter index: the tick's index in the stream.
    /// - Returns: `deviations` standard errors of the line's prediction for it, at least `floorSeconds`.
    public func threshold(forTick index: Int64) -> Double {
        let floor = Self.floorSeconds * framesPerSecond
        guard let lastIndex, ticks.count >= 2, sxx > 0 else { return floor }
        let n = Double(ticks.count)
        let x = Double(index - lastIndex) - meanX
        let standardError = jitter * (1 + 1 / n + x * x / sxx).squareRoot()
        return max(floor, Self.deviations * standardError)
    }

    /// Takes a tick that arrived on an exact output frame (frames never go back).
    /// - Returns: the stream index it was given, or nil when it was left out (too fast) or waits for the next tick
    ///   to say what it was.
    /// - Complexity: O(`window`).
    @discardableResult
    public mutating func tick(at frame: Double) -> Int64? {
        counts.ticks += 1
        defer { lastArrival = frame }
        if let lastArrival, frame - lastArrival < minimumInterval {
            counts.tooFast += 1
            return nil
        }
        guard let line, let last = lastIndex, jitterMeasured else {
            // The first ticks, until a line of `noiseTicks` has measured the sender's jitter: every one joins (with
            // none measured, any jitter over the floor would read as a change of tempo).
            let index = (lastIndex ?? -1) + 1
            join(index, frame)
            return index
        }
        let next = last + 1
        guard let waiting = pending else {
            if isOnLine(frame, index: next) {
                join(next, frame)
                return next
            }
            pending = frame
            return nil
        }
        pending = nil
        if isOnLine(frame, index: next + 1) {
            counts.outliers += 1
            join(next + 1, frame)
            return next + 1
        }
        let skipped = Int64(max(0, ((waiting - line.frame(ofTick: Double(next))) / line.period).rounded()))
        if skipped > 0, isOnLine(waiting, index: next + skipped), isOnLine(frame, index: next + skipped + 1) {
            counts.dropped += Int(skipped)
            join(next + skipped, waiting)
            join(next + skipped + 1, frame)
            return next + skipped + 1
        }
        // This one on the line, on the tick due next or further on: the one waiting was no tick of the clock's (a
        // stray F8, a flood's first), and the ticks between, if any, were lost (the one waiting stands for one).
        let on = Int64(((frame - line.frame(ofTick: Double(next))) / line.period).rounded())
        if on == 0 || on > 1, isOnLine(frame, index: next + on) {
            counts.outliers += 1
            counts.dropped += Int(max(0, on - 1))
            join(next + on, frame)
            return next + on
        }
        let kept = ticks.last ?? (last, line.frame(ofTick: Double(last)))
        // A change of tempo spaces the two new ticks alike (from the last on the line to the one waiting, and from
        // that one to this). Spaced unlike, the one waiting is left out and this one waits in its place, once: off
        // the line twice running, the clock jumped (a sender that stopped and started again at another phase), and
        // the line starts again from the two.
        let (first, second) = (waiting - kept.frame, frame - waiting)
        if first <= second / 2 || first >= second * 2, offInARow == 0 {
            counts.outliers += 1
            offInARow += 1
            pending = frame
            return nil
        }
        counts.changes += 1
        ticks = offInARow == 0 ? [kept] : []
        join(next, waiting)
        join(next + 1, frame)
        return next + 1
    }

    /// The stream's index of the last tick received: the last that joined the line, or one more while a tick waits
    /// to be told what it was (it came before anything received after it). -1 before any.
    public var receivedIndex: Int64 { (lastIndex ?? -1) + (pending == nil ? 0 : 1) }

    /// Takes the first tick after the clock stopped arriving for a while: the line starts again from it, and its
    /// index is the one the old line gives its frame (the ticks of the silence were lost: counted as missing), so
    /// the song's position goes on where the time went. The jitter measured and the counts stay.
    /// - Returns: the stream index it was given.
    @discardableResult
    public mutating func tickAfterSilence(at frame: Double) -> Int64 {
        let next = (lastIndex ?? -1) + 1
        var index = next
        if let line { index = max(next, Int64(line.tick(atFrame: frame).rounded())) }
        counts.ticks += 1
        counts.dropped += Int(index - next)
        ticks = []
        line = nil
        pending = nil
        meanX = 0
        sxx = 0
        lastArrival = frame
        join(index, frame)
        return index
    }

    private func isOnLine(_ frame: Double, index: Int64) -> Bool {
        guard let line else { return false }
        return abs(frame - line.frame(ofTick: Double(index))) <= threshold(forTick: index)
    }

    private mutating func join(_ index: Int64, _ frame: Double) {
        offInARow = 0
        ticks.append((index, frame))
        if ticks.count > window { ticks.removeFirst(ticks.count - window) }
        lastIndex = index
        fit()
    }

    /// Fits the line by least squares, in coordinates relative to the last tick (indices and frames that large lose
    /// no precision).
    private mutating func fit() {
        guard let last = ticks.last else { return }
        guard ticks.count >= 2 else {
            line = line.map { Line(index: last.index, frame: last.frame, period: $0.period) }
            meanX = 0
            sxx = 0
            return
        }
        let n = Double(ticks.count)
        var sumX = 0.0
        var sumY = 0.0
        for tick in ticks {
            sumX += Double(tick.index - last.index)
            sumY += tick.frame - last.frame
        }
        let mx = sumX / n
        let my = sumY / n
        var sxx = 0.0
        var sxy = 0.0
        for tick in ticks {
            let dx = Double(tick.index - last.index) - mx
            sxx += dx * dx
            sxy += dx * (tick.frame - last.frame - my)
        }
        let period = sxy / sxx
        guard period > 0, period.isFinite else { return }
        line = Line(index: last.index, frame: last.frame + my - period * mx, period: period)
        meanX = mx
        self.sxx = sxx
        if ticks.count >= Self.noiseTicks {
            var squares = 0.0
            for tick in ticks {
                let residual = tick.frame - last.frame - (my + period * (Double(tick.index - last.index) - mx))
                squares += residual * residual
            }
            jitter = (squares / (n - 2)).squareRoot()
            jitterMeasured = true
        }
    }
}
