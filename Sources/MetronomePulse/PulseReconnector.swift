import MetronomeKit

/// Keeps a live session playing through PulseAudio when the server or the sink goes away: the transport goes on on
/// the host clock, and a new stream takes over on the same beat grid when the server (or a sink) is back.
///
/// On a loss it closes the lost stream and attaches a `HostClockOutput` that pulls the mixer on the lost stream's own
/// clock line (`PulseOutput.mapping`), at the frame heard now, so clicks that fall in the gap are rendered into nothing
/// — skipped, never saved up. It then tries a new stream 100 ms later, doubling the pause up to 250 ms (a refused try
/// costs well under a millisecond), each try bounded by the time left. The stand-in is stopped just before the new
/// stream is created (`PulseOutput`'s `beforeStreaming`), and the new stream's first write callback brings the mixer up
/// to the frame the line gives for that instant (`catchUp`), so the new stream starts from the frame the grid has
/// reached: its clicks are heard where the lost stream would have played them, later by the new stream's start latency:
/// the time the server takes to play its first frame, which depends on where the sink is in its own cycle (4–46 ms
/// measured on a null sink). That residue is not corrected yet. After `timeout` without a stream it gives up with the
/// last reason.
///
/// Threads: one control thread (it owns the outputs it creates).
public struct PulseReconnector {
    /// The stream playing, or the lost one during a gap.
    public private(set) var output: PulseOutput
    /// The session the streams play.
    public let session: Session
    /// Where new streams go: the server address (nil: PULSE_SERVER or the default), the sink (nil: the server's
    /// default), the target latency.
    public let server: String?
    public let device: String?
    public let latency: Duration
    /// How long to retry after a loss; nil: never (a loss gives up at once).
    public let timeout: Duration?
    /// How long one try may wait for the server to answer, and again for the stream.
    public let tryTimeout: Duration
    private var gap: Gap?

    /// A stretch without a stream.
    private struct Gap {
        var standIn: HostClockOutput
        let since: HostTime
        var pause: Duration = .milliseconds(100)
        var nextTry: HostTime
        var lastFailure: PulseError
    }

    /// What a `poll` found.
    public enum Event: Sendable {
        /// Nothing new: playing, or still retrying.
        case none
        /// The server or the sink went away (`PulseOutput.loss`); retrying for `timeout`.
        case lost(PulseError)
        /// A new stream plays (also `output` now).
        case back(PulseOutput)
        /// Lost, and not to be retried (`timeout` nil), or retried in vain for `timeout`: the last reason.
        case gaveUp(PulseError)
    }

    /// Watches a playing stream.
    /// - Parameters:
    ///   - output: the stream playing `session`'s mixer, attached to it.
    ///   - session: the session it plays.
    ///   - server: where new streams go (nil: PULSE_SERVER or the default server).
    ///   - device: the sink of new streams (nil: the server's default sink).
    ///   - latency: their target latency.
    ///   - timeout: how long to retry after a loss (nil: never).
    ///   - tryTimeout: how long one try may wait on the server (default 5 s, or less when less time is left).
    public init(
        output: PulseOutput, session: Session, server: String? = nil, device: String?, latency: Duration,
        timeout: Duration?, tryTimeout: Duration = .seconds(5)
    ) {
        self.output = output
        self.session = session
        self.server = server
        self.device = device
        self.latency = latency
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
            guard let loss = output.loss else { return .none }
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
        do throws(PulseError) {
            let fresh = try PulseOutput(
                mixer: session.mixer, server: server, device: device, latency: latency,
                timeout: min(tryTimeout, .nanoseconds(deadline - now.nanoseconds)), isCancelled: isCancelled,
                beforeStreaming: { standIn.stop() }, catchUp: { [line = standIn.line] in line.frame(at: $0) })
            output = fresh
            session.attach(output: fresh)
            self.gap = nil
            return .back(fresh)
        } catch {
            // The stand-in may have been stopped for a stream that then failed: a new one goes on on the same line.
            if standIn.isStopped {
                gap.standIn = HostClockOutput(
                    mixer: session.mixer, mapping: standIn.line, latencyFrames: standIn.lead)
                session.attach(output: gap.standIn)
            }
            gap.lastFailure = error
            gap.nextTry = HostTime(nanoseconds: HostTime.now().nanoseconds + Int64(gap.pause.inSeconds * 1e9))
            gap.pause = min(gap.pause * 2, .milliseconds(250))
            self.gap = gap
            return .none
        }
    }

    /// Stops a gap's stand-in clock (playback is ending): nothing pulls the mixer any more.
    public func stopStandIn() {
        gap?.standIn.stop()
    }

    private mutating func startGap(_ loss: PulseError) {
        let now = HostTime.now()
        let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
        // The lost stream's line, if it had one; otherwise the frames written so far count as heard now. The stand-in
        // keeps the mixer at the frame heard now: a new stream plays its first write at once (the sink's own latency
        // later, some 4 ms on a null sink), while a lead as long as the lost stream's buffer put the return 16 ms
        // early.
        let mapping =
            output.mapping ?? ClockMapping(frame: session.mixer.framePosition, hostTime: now, framesPerSecond: rate)
        let lead: SampleTime = 0
        // Nothing pulls the mixer once the lost stream is closed; the stand-in takes over.
        output.close()
        let standIn = HostClockOutput(mixer: session.mixer, mapping: mapping, latencyFrames: lead)
        session.attach(output: standIn)
        gap = Gap(
            standIn: standIn, since: now, nextTry: HostTime(nanoseconds: now.nanoseconds + 100_000_000),
            lastFailure: loss)
    }
}
