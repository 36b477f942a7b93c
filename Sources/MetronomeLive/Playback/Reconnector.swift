import MetronomeModel

/// Keeps a live session playing when its backend's server or device goes away: the transport goes on on the host
/// clock, and a new backend from the same `OutputDriver` takes over on the same beat grid when the server is back.
/// Backend-neutral: PulseAudio's `PulseReconnector` is this over `PulseDriver`.
///
/// On a loss it closes the lost stream and attaches a `HostClockOutput` that pulls the mixer on the lost stream's own
/// clock line (`FrameClock.mapping`), at the frame heard now, so clicks that fall in the gap are rendered into nothing
/// — skipped, never saved up; with a driver whose backends lock the map to an external transport
/// (`OutputDriver.locksToTransport`) it holds the mixer still instead, as nothing rolls without the transport. It then
/// tries a new stream 100 ms later, doubling the pause up to 250 ms (a refused try costs well under a millisecond),
/// each try bounded by the time left. The stand-in is stopped just before the new stream is created
/// (`OutputTakeover.beforeStreaming`), and the new stream's first write callback brings the mixer up to the frame the
/// line gives for that instant (`OutputTakeover.catchUp`), so the new stream starts from the frame the grid has
/// reached. That stream starts silent: it pulls the mixer at its own pace but renders into nothing, because it would be
/// heard later than the lost stream would have played the same frames by its start latency: the time the server takes
/// to play its first frame, which depends on where the sink is in its own cycle (4–46 ms measured on a null sink). Once
/// it has played `alignAfter` (250 ms) and its own clock fit is known, the next `poll` compares it with the line (both
/// backends' `OutputBackend.alignment`: for PulseAudio each fit moved onto its least-delayed report, as the
/// server stamps its reports late by a delay that grows with load; a new clock whose delay may be more than
/// `alignmentDelayLimit` waits for a report that bounds it, up to a second: the bound `OutputBackend.alignment` reads;
/// each comparison is kept, `comparisons`) and advances the mixer by the frames it plays late
/// (`OutputBackend.advance(by:)`): the render thread renders them into nothing in pieces, only while nothing sounds
/// and never past what the scheduler has reached (`SkipAllowance`). The stream sounds from the first callback after
/// that with no voice sounding, so the first click heard after the return is on the lost stream's line, as every later
/// one, to within the clock fit's accuracy (within 0.021 ms by the fit, 0.06–0.36 ms early by PulseAudio's own
/// `pa_stream_get_time`, measured on a null sink); clicks due in the silent start are skipped, as in the gap. A stream
/// that plays early is left as it is (never seen: it cannot play a frame before its first write); one with no clock
/// fit after a second sounds where it is. After `timeout` without a stream it gives up with the last reason.
///
/// MIDI receivers miss the clocks of the gap and of the silent start, so once the new stream sounds the session tells
/// them where the music is (`Session.resyncMIDI()`: Stop, Song Position, Continue; nothing without MIDI clock, or while
/// stopped or paused; nor with a driver that locks to a transport, `OutputDriver.locksToTransport`, whose first seek on
/// the new server tells them). A takeover may leave connections pending whose other end is not back yet
/// (`OutputBackend.connectPending()`): every `poll` tries them, reports those made (`Event.connected`) and resyncs the
/// receivers again, so one that came back late joins in phase.
///
/// Threads: one control thread (it owns the outputs it creates).
public struct Reconnector<Driver: OutputDriver> {
    /// The backends it opens.
    public typealias Backend = Driver.Backend
    /// Why a backend was lost or refused.
    public typealias Failure = Driver.Backend.Failure

    /// The stream playing, or the lost one during a gap.
    public private(set) var output: Backend
    /// The streams lost before `output`, closed, oldest first: their figures (underruns, callbacks) are the run's too,
    /// for a report of the whole run. At most `lostOutputsKept` (a closed backend keeps its counters and its callback
    /// log, a few kilobytes); older ones are dropped and counted in `lostOutputsDropped`.
    public private(set) var lostOutputs: [Backend] = []
    /// Lost streams dropped from `lostOutputs` for its bound.
    public private(set) var lostOutputsDropped = 0
    /// How many lost streams `lostOutputs` keeps.
    public static var lostOutputsKept: Int { 64 }
    /// The session the streams play.
    public let session: Session
    /// Opens new backends (where they go: the server, the device, the latency).
    public let driver: Driver
    /// How long to retry after a loss; nil: never (a loss gives up at once).
    public let timeout: Duration?
    /// How long one try may wait for the server to answer, and again for the stream.
    public let tryTimeout: Duration
    private var gap: Gap?
    /// The line a new stream is still to be compared with (set by its return, cleared by the comparison).
    private var pendingAlignment: ClockMapping?
    /// Whether MIDI receivers are owed a resync once the stream sounds (set by a return and by a late connection).
    private var resyncDue = false
    /// The lost stream's clock line, which the last gap and the return kept to; nil before a loss.
    package private(set) var line: ClockMapping?
    /// Each new stream's comparison with the line it took over, oldest first; at most `lostOutputsKept`. A stream
    /// lost again before its comparison, or one with no clock after a second (it sounds where it is), has none.
    public private(set) var comparisons: [GridComparison] = []
    /// The returns so far (new backends that took over); each comparison carries its return's number.
    public private(set) var returns = 0
    /// The `--verbose` lines of `comparisons`, each with its return's number.
    public var comparisonLines: [String] { comparisons.map(\.line) }
    /// The lost stream's `OutputBackend.alignment` bound when `line` was taken from it.
    private var lineDelayBound: Duration?
    /// How long a new stream plays before its clock is compared with the line: its fit has had some ten reports.
    static var alignAfter: Int64 { 250_000_000 }
    /// The largest `OutputBackend.alignment` bound a new stream's clock is compared with before 4 × `alignAfter`:
    /// 0.2 ms, about 10 frames at 48 kHz. The comparison skips too many frames by its clock's delay, and a stream whose
    /// every report so far may be that late may be that far off: a first click 12 frames early once in CI (a179259).
    /// The bound was 0.08 to 0.13 ms at 12 returns on a quiet machine here (docs/benchmarks.md), so the wait is for a
    /// rare stream; one that waits stays silent a little longer.
    static var alignmentDelayLimit: Duration { .microseconds(200) }

    /// A stretch without a stream.
    private struct Gap {
        var standIn: HostClockOutput
        let since: HostTime
        var pause: Duration = .milliseconds(100)
        var nextTry: HostTime
        var lastFailure: Failure
    }

    /// What a `poll` found.
    public enum Event {
        /// Nothing new: playing, or still retrying.
        case none
        /// The server or the device went away (`OutputBackend.loss`); retrying for `timeout`.
        case lost(Failure)
        /// A new backend plays (also `output` now).
        case back(Backend)
        /// Connections left pending by a takeover were made (their other end is back): ours first, each.
        case connected([(from: String, to: String)])
        /// Lost, and not to be retried (`timeout` nil), or retried in vain for `timeout`: the last reason.
        case gaveUp(Failure)
    }

    /// Watches a playing backend.
    /// - Parameters:
    ///   - output: the backend playing `session`'s mixer, attached to it.
    ///   - session: the session it plays.
    ///   - driver: opens new backends after a loss.
    ///   - timeout: how long to retry after a loss (nil: never).
    ///   - tryTimeout: how long one try may wait on the server (default 5 s, or less when less time is left).
    public init(
        output: Backend, session: Session, driver: Driver, timeout: Duration?, tryTimeout: Duration = .seconds(5)
    ) {
        self.output = output
        self.session = session
        self.driver = driver
        self.timeout = timeout
        self.tryTimeout = tryTimeout
    }

    /// Whether a stream plays (no loss, no gap).
    public var isPlaying: Bool { gap == nil && !output.isLost }

    /// Looks for a loss and, in a gap, tries a new stream when it is time. Call every few tens of milliseconds; a
    /// try blocks until the server answers (a few milliseconds), refuses, or `tryTimeout` passes.
    /// - Parameter isCancelled: polled every 10 ms while a try waits on the server: true gives the try up.
    /// - Returns: what changed.
    public mutating func poll(isCancelled: () -> Bool = { false }) -> Event {
        guard var gap else {
            guard let loss = output.loss else {
                alignIfDue()
                let made = output.connectPending()
                if !made.isEmpty { resyncDue = true }
                if resyncDue, output.isSounding {
                    resyncDue = false
                    session.resyncMIDI()
                }
                return made.isEmpty ? .none : .connected(made)
            }
            pendingAlignment = nil
            resyncDue = false
            guard timeout != nil else { return .gaveUp(loss) }
            startGap(loss)
            return .lost(loss)
        }
        let now = HostTime.now()
        let deadline = gap.since.nanoseconds + Int64(((timeout ?? .zero).inSeconds * 1e9).rounded())
        if now.nanoseconds >= deadline {
            gap.standIn.stop()
            return .gaveUp(gap.lastFailure)
        }
        guard now >= gap.nextTry else { return .none }
        let standIn = gap.standIn
        do throws(Failure) {
            let takeover = OutputTakeover(
                beforeStreaming: { standIn.stop() }, catchUp: { [line = standIn.line] in line.frame(at: $0) },
                skipLimit: { [allowance = session.skipAllowance] in allowance.framesAhead(blockFrames: $0) })
            let fresh = try driver.open(
                mixer: session.mixer, timeout: min(tryTimeout, .nanoseconds(deadline - now.nanoseconds)),
                isCancelled: isCancelled, takeover: takeover)
            output = fresh
            session.attach(output: fresh)
            self.gap = nil
            pendingAlignment = standIn.line
            returns += 1
            // Locked to a transport, the new client's first cycle seeks to the transport's frame, and the seek sends
            // its own Stop and Song Position (Start at the top) on that frame: a resync after it would move the
            // receivers again, off the music (a Song Position a sixteenth on, a few cycles after the Start).
            resyncDue = !driver.locksToTransport
            return .back(fresh)
        } catch {
            // The stand-in may have been stopped for a stream that then failed: a new one goes on on the same line.
            if standIn.isStopped {
                gap.standIn = HostClockOutput(
                    mixer: session.mixer, mapping: standIn.line, latencyFrames: standIn.lead, holds: standIn.holds)
                session.attach(output: gap.standIn)
            }
            gap.lastFailure = error
            gap.nextTry = HostTime(nanoseconds: HostTime.now().nanoseconds + Int64(gap.pause.inSeconds * 1e9))
            gap.pause = min(gap.pause * 2, .milliseconds(250))
            self.gap = gap
            return .none
        }
    }

    /// Once the new stream has played `alignAfter` and its clock is within `alignmentDelayLimit` or has no bound (or
    /// has played 4 × `alignAfter`, whatever its clock's bound), compares its clock with the line and advances its
    /// mixer by the frames it plays late; while that advance is pending, keeps the scheduler awake so the stream may
    /// take it in small pieces between clicks.
    private mutating func alignIfDue() {
        if output.pendingAdvance > 0 { session.wake() }
        guard let line = pendingAlignment, let first = output.firstWriteNanoseconds else { return }
        let played = HostTime.now().nanoseconds - first
        guard played >= Self.alignAfter else { return }
        let waitedLongest = played >= 4 * Self.alignAfter
        let (alignment, bound) = output.alignment
        guard let mapping = alignment else {
            // No clock after a second: the stream sounds where it is rather than stay silent.
            if waitedLongest {
                pendingAlignment = nil
                output.advance(by: 0)
            }
            return
        }
        // The bound read with the mapping (`OutputBackend.alignment`). A clock with no bound (a server whose clock is
        // not this machine's) has nothing to wait for.
        guard waitedLongest || bound.map({ $0 <= Self.alignmentDelayLimit }) ?? true else { return }
        pendingAlignment = nil
        let late = Double(mapping.hostTime.nanoseconds - line.hostTime(ofFrame: mapping.frame).nanoseconds) / 1e9
        let frames = max(0, SampleTime((late * line.framesPerSecond).rounded()))
        if comparisons.count == Self.lostOutputsKept { comparisons.removeFirst() }
        comparisons.append(
            GridComparison(
                number: returns, late: late, frames: frames, delayBound: bound, lineDelayBound: lineDelayBound))
        output.advance(by: frames)
        session.wake()
    }

    /// Stops a gap's stand-in clock (playback is ending): nothing pulls the mixer any more.
    public func stopStandIn() {
        gap?.standIn.stop()
    }

    private mutating func startGap(_ loss: Failure) {
        let now = HostTime.now()
        let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
        // The lost stream's line, if it had one; otherwise the frames written so far count as heard now. The stand-in
        // keeps the mixer at the frame heard now: a new stream plays its first write at once (the sink's own latency
        // later, some 4 ms on a null sink), while a lead as long as the lost stream's buffer put the return 16 ms
        // early.
        let (alignment, alignmentBound) = output.alignment
        let mapping =
            alignment ?? ClockMapping(frame: session.mixer.framePosition, hostTime: now, framesPerSecond: rate)
        lineDelayBound = alignment == nil ? nil : alignmentBound
        let lead: SampleTime = 0
        // Nothing pulls the mixer once the lost stream is closed; the stand-in takes over.
        output.close()
        lostOutputs.append(output)
        if lostOutputs.count > Self.lostOutputsKept {
            lostOutputs.removeFirst()
            lostOutputsDropped += 1
        }
        line = mapping
        // Locked to an external transport (JACK's), nothing rolls while its server is away: the mixer is held (a song
        // does not play out in the gap), and the new output's first seek puts the map on the new transport's frame.
        let standIn = HostClockOutput(
            mixer: session.mixer, mapping: mapping, latencyFrames: lead, holds: driver.locksToTransport)
        session.attach(output: standIn)
        gap = Gap(
            standIn: standIn, since: now, nextTry: HostTime(nanoseconds: now.nanoseconds + 100_000_000),
            lastFailure: loss)
    }
}

/// A new stream compared with the line of the stream it took over (`Reconnector.comparisons`): how late it played,
/// the frames skipped for it, and how far each side's clock may be off (each placed on its least-delayed report,
/// which may be late by up to its bound): the comparison may skip up to `delayBound` too many frames and up to
/// `lineDelayBound` too few.
public struct GridComparison: Sendable, Equatable {
    /// Which return of the run it was, from 1.
    public let number: Int
    /// How late the new stream played against the line, in seconds (negative: early).
    public let late: Double
    /// The frames its mixer was advanced for it.
    public let frames: SampleTime
    /// The new stream's `OutputBackend.alignment` bound at the comparison (zero for a clock that is exact, as
    /// JACK's).
    public let delayBound: Duration?
    /// The lost stream's at the loss.
    public let lineDelayBound: Duration?

    package init(number: Int, late: Double, frames: SampleTime, delayBound: Duration?, lineDelayBound: Duration?) {
        self.number = number
        self.late = late
        self.frames = frames
        self.delayBound = delayBound
        self.lineDelayBound = lineDelayBound
    }

    /// The `--verbose` line: "return 1: the new stream 4.102 ms behind the lost one's line, 197 frames skipped (each
    /// clock's least-delayed report within 0.081 ms new, 0.054 ms lost)"; "unbounded" for a clock with no bound.
    public var line: String {
        func milliseconds(_ duration: Duration?) -> String {
            guard let duration else { return "unbounded" }
            return "\((duration.inSeconds * 1e6).rounded() / 1000) ms"
        }
        let behind = (late * 1e6).rounded() / 1000
        return "return \(number): the new stream \(behind) ms behind the lost one's line, \(frames) frames skipped "
            + "(each clock's least-delayed report within \(milliseconds(delayBound)) new, "
            + "\(milliseconds(lineDelayBound)) lost)"
    }
}
