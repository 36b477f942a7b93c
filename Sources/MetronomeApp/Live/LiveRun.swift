import MetronomeEngine
import MetronomeLive
import MetronomeModel

/// A live run, composed in one place: a session played through an output driver until it ends, a stop or a quit,
/// keeping the beat through a server that goes away (`Reconnector`), with the followers that steer it
/// (`SessionFollower`: a JACK transport lock, …), the companions that run beside it (`LiveCompanion`: the OSC service,
/// the web remote, Link) and the beat observations of whoever watches (a status line, subscribers). Every way out —
/// the first output refused, the end, a stop, a server given up — goes through one cleanup: companions stopped in
/// order, the session stopped (the output drained and closed when it plays), observations cancelled.
///
/// `metronome 120`, `play`, `arp`, `chord` and `serve` are each one of these; a library user builds one the same way:
///
/// ```swift
/// let session = try plan.session(configuration: try plan.mixerConfiguration(), lookahead: nil, live: true)
/// var run = LiveRun(session: session, driver: PulseDriver(device: nil, latency: .milliseconds(20)))
/// let result = try run.run(latency: { _ in .milliseconds(20) })
/// ```
///
/// Threads: create and `run` on one control thread.
public struct LiveRun<Driver: OutputDriver> where Driver.Backend: ReportingOutput {
    public typealias Backend = Driver.Backend

    /// The session played: built, not yet started (`run` starts it after adding the followers).
    public let session: Session
    /// Opens the output, and new ones after a loss.
    public let driver: Driver
    /// Added to the session before it starts, in order.
    public var followers: [any SessionFollower] = []
    /// Run beside the session, stopped in order.
    public var companions: [any LiveCompanion] = []
    /// Cancelled once the output has finished.
    public var observations: [BeatObservation] = []
    /// How long the server may take to answer, and again to accept the stream.
    public var serverTimeout: Duration = .seconds(5)
    /// How long to retry after the server goes away; nil gives up at once.
    public var reconnectTimeout: Duration? = nil
    /// Whether the session's lookahead is widened to the latency each output is granted
    /// (`Session.coverOutputLatency`): true unless a lookahead was set by hand.
    public var coversGrantedLatency = true
    /// The pause between polls of the output (50 ms for a click, 10 ms when a service publishes beats).
    public var pollInterval: Duration = .milliseconds(50)
    /// Whether the result carries the `--verbose` report.
    public var verbose = false

    /// A run of `session` through `driver`, with nothing beside it.
    public init(session: Session, driver: Driver) {
        self.session = session
        self.driver = driver
    }

    /// How a run ended, and its report.
    public struct Result {
        /// Why the poll loop ended (`Reconnector.Ending`).
        public var ending: Reconnector<Driver>.Ending
        /// The `--verbose` lines (`ReportingOutput.report`, the companions' and followers' lines among them); empty
        /// unless `verbose`.
        public var report: [String]
    }

    /// Adds the followers, starts the session (its first window scheduled before the output exists, so the first
    /// request already holds bar 1), opens the output and plays until `shouldStop`, the output is given up, or,
    /// while `playsToEnd`, the session has played out; then ends it.
    /// - Parameters:
    ///   - isCancelled: polled while the first output is being opened: true gives up (the driver's failure).
    ///   - started: called once the first output plays, after the companions began (keys, a status line).
    ///   - playsToEnd: whether the end of the session ends the run now.
    ///   - shouldStop: polled every `pollInterval`.
    ///   - latency: the output's latency, for the wait at the end (`Reconnector.finish`).
    ///   - onEvent: told of each loss, return and late connection, after the run has taken it.
    /// - Returns: how it ended, with the report.
    /// - Throws: the driver's failure when the first output cannot be opened (everything is stopped by then).
    public func run(
        isCancelled: () -> Bool = { false }, started: (Backend) -> Void = { _ in }, playsToEnd: () -> Bool = { true },
        shouldStop: () -> Bool = { false }, latency: (Backend) -> Duration,
        onEvent: (Reconnector<Driver>.Event) -> Void = { _ in }
    ) throws(Backend.Failure) -> Result {
        for follower in followers { session.add(follower: follower) }
        session.start(output: nil)
        var stream: Reconnector<Driver>
        do throws(Backend.Failure) {
            stream = try .start(
                session: session, driver: driver, timeout: serverTimeout, reconnectTimeout: reconnectTimeout,
                isCancelled: isCancelled)
        } catch {
            for companion in companions { companion.stop() }
            session.stop()
            for observation in observations { observation.cancel() }
            throw error
        }
        cover(stream.output)
        for companion in companions { companion.begin(session: session, output: stream.output) }
        let buffer = stream.output.bufferFrames
        started(stream.output)
        let ending = stream.play(
            interval: pollInterval, playsToEnd: playsToEnd, shouldStop: shouldStop,
            onEvent: { event in
                if case .back(let fresh) = event {
                    cover(fresh)
                    for companion in companions { companion.resume(output: fresh) }
                }
                onEvent(event)
            })
        let ended: LiveRunEnding =
            switch ending {
            case .reachedEnd: .reachedEnd
            case .stopped: .stopped
            case .gaveUp: .lost
            }
        for companion in companions { companion.runEnded(ended) }
        for companion in companions { companion.stop() }
        let output = stream.output
        if verbose, stream.isPlaying { output.refreshLatency() }
        // Over at the end: the last sounds are faded at once; stopped early, the sounding click may finish first.
        if case .reachedEnd = ending {
            stream.finish(ringOut: .zero, latency: latency(output))
        } else {
            stream.finish(ringOut: .milliseconds(150), latency: latency(output))
        }
        for observation in observations { observation.cancel() }
        guard verbose else { return Result(ending: ending, report: []) }
        // Every follower of the session's, those added before the run (MIDI input) among them.
        let extra =
            stream.comparisonLines + companions.flatMap(\.reportLines)
            + session.followerList.flatMap { $0.reportLines(session: session) }
        let report = output.report(
            session: session, buffer: buffer, extra: extra, earlier: stream.lostOutputs,
            dropped: stream.lostOutputsDropped)
        return Result(ending: ending, report: report)
    }

    /// Widens the lookahead to the latency `output` was granted, which may be more than the one asked for
    /// (pipewire-pulse).
    private func cover(_ output: Backend) {
        if coversGrantedLatency, let target = output.bufferFrames?.target {
            session.coverOutputLatency(SampleTime(target))
        }
    }
}
