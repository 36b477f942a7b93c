import MetronomeEngine
import MetronomeModel

/// A live audio backend that a session plays through: it pulls frames from a mixer on its own real-time thread and
/// moves them to a sound server or device. PulseAudio implements it (`MetronomePulse.PulseOutput`); a session, the
/// reconnector and the OSC service name only this protocol.
///
/// What a backend must provide: the render callback (it calls `Mixer.render(into:frameCount:)` and nothing that
/// allocates, locks, logs or calls Foundation), the frame clock and its host-time mapping (`FrameClock.mapping`),
/// its latency (`AudioOutput.latencyFrames`), underruns, and loss (`loss`), so that `Reconnector` can keep the beat
/// grid across a server that goes away. Opening one is an `OutputDriver`'s job.
///
/// Threads: the properties may be read from any thread; `advance(by:)`, `drain(timeout:)` and `close()` are called
/// from the one control thread that owns the backend.
public protocol OutputBackend: AudioOutput, OutputClock {
    /// Why a backend could not be opened or stopped playing.
    associatedtype Failure: Error & CustomStringConvertible

    /// Whether the server or the device has gone away: cheap, any thread (the render thread's own flags).
    var isLost: Bool { get }

    /// Why the backend stopped playing (its server or device went away), once `isLost`; nil while it plays.
    var loss: Failure? { get }

    /// When the first frames were handed to the server, in `CLOCK_MONOTONIC` nanoseconds; nil before.
    var firstWriteNanoseconds: Int64? { get }

    /// The clock line to compare with another backend's when a new one takes over a beat grid (`Reconnector`), and
    /// how much later than its frames are heard that line may place them at most, read together (a backend that
    /// publishes both as they change reads them from one store). The line: for a backend whose clock is fitted to
    /// reports the server stamps late by a varying delay, the fit moved onto the least-delayed report
    /// (`ClockEstimator.earliest`), so the two lines agree to within their least delays rather than their typical
    /// ones, which grow with the machine's load; `mapping` for a backend whose clock is exact (the default). The
    /// bound: for PulseAudio, from when the timing requests were sent and when the server stamped its answers; zero
    /// for a backend whose clock is exact (the default: JACK's frame times), nil when nothing bounds it. Any thread.
    var alignment: (mapping: ClockMapping?, delayBound: Duration?) { get }

    /// Frames `advance(by:)` asked for that the render callback has not yet skipped.
    var pendingAdvance: SampleTime { get }

    /// Whether what the mixer renders is heard: always, but for a backend opened with a takeover until it is on its
    /// grid (`advance(by:)`). Any thread.
    var isSounding: Bool { get }

    /// Connects what a takeover could not connect yet because the other end was not there (a port named on the
    /// command line whose client is not back with the server), as far as it is there now. The default has nothing
    /// pending. Control thread (the reconnector's poll), never a callback of the server's.
    /// - Returns: the connections made by this call, ours first; empty when none.
    func connectPending() -> [(from: String, to: String)]

    /// Moves the backend onto a beat grid it plays behind: the mixer is rendered into nothing for `frames` frames
    /// on the render thread, in pieces while nothing sounds and as far as its `OutputTakeover.skipLimit` allows.
    /// A backend opened with a takeover is silent until this is called (with 0 when it is on its grid already) and
    /// the skip is done: it pulls the mixer at its own pace and renders into nothing, so nothing is heard off the
    /// grid. Does nothing for a backend opened without a takeover.
    /// - Parameter frames: how far; less than 0 does nothing.
    func advance(by frames: SampleTime)

    /// Waits until what the mixer has rendered has been played.
    /// - Parameter timeout: the longest wait; nil waits as long as the server keeps playing.
    /// - Returns: false when the wait ended for the timeout or a loss.
    func drain(timeout: Duration?) -> Bool

    /// Stops pulling the mixer and lets go of the server or device; afterwards another backend may pull the mixer.
    /// Safe to call more than once.
    func close()
}

extension OutputBackend {
    /// `mapping`, bounded by zero: a backend whose clock is exact (JACK's frame times).
    public var alignment: (mapping: ClockMapping?, delayBound: Duration?) { (mapping, .zero) }

    /// Nothing is ever pending: a backend whose connections are made with it (PulseAudio's stream to its sink).
    public func connectPending() -> [(from: String, to: String)] { [] }
}

/// An output's frame clock and the underruns (xruns) its server or device has reported: what an OSC service reports
/// of it beside time tags and beats. Every `OutputBackend` is one.
public protocol OutputClock: FrameClock {
    /// Underruns (xruns) the server or device has reported since the backend opened. Any thread.
    var underrunCount: Int { get }
}

/// How a backend that takes over a running mixer joins its beat grid: what `Reconnector` passes to
/// `OutputDriver.open` when a server comes back.
public struct OutputTakeover: Sendable {
    /// Called on the opening thread once the server has answered, just before the mixer is first pulled: the
    /// stand-in clock stops here.
    public var beforeStreaming: @Sendable () -> Void
    /// Called once, on the render thread in the first callback, with the time: the mixer is first rendered into
    /// nothing up to the frame it returns. Must not allocate, lock or block.
    public var catchUp: @Sendable (HostTime) -> SampleTime
    /// Called on the render thread while an `advance(by:)` is pending, with the frames about to be rendered: how many
    /// frames the mixer may be skipped now (`SkipAllowance.framesAhead`). Must not allocate, lock or block.
    public var skipLimit: @Sendable (Int) -> SampleTime

    /// Creates a takeover.
    /// - Parameters:
    ///   - beforeStreaming: called just before the mixer is first pulled.
    ///   - catchUp: the frame the mixer must have reached at an instant (render thread).
    ///   - skipLimit: how far the mixer may be skipped now (render thread).
    public init(
        beforeStreaming: @escaping @Sendable () -> Void, catchUp: @escaping @Sendable (HostTime) -> SampleTime,
        skipLimit: @escaping @Sendable (Int) -> SampleTime
    ) {
        self.beforeStreaming = beforeStreaming
        self.catchUp = catchUp
        self.skipLimit = skipLimit
    }
}

/// Opens backends of one kind with fixed settings (server, device, latency): what a reconnect needs to try again.
public protocol OutputDriver {
    /// The backends it opens.
    associatedtype Backend: OutputBackend

    /// Opens a backend that starts pulling `mixer` at once.
    /// - Parameters:
    ///   - mixer: supplies every frame; nothing else may pull it while the backend is open.
    ///   - timeout: how long the server may take to answer, and again to accept the stream.
    ///   - isCancelled: polled at least every 10 ms on the calling thread while waiting: true gives up at once.
    ///   - takeover: for a backend that takes over a running mixer on a beat grid; nil for a fresh start.
    /// - Returns: the open backend.
    /// - Throws: why the server refused or did not answer.
    func open(mixer: Mixer, timeout: Duration, isCancelled: () -> Bool, takeover: OutputTakeover?)
        throws(Backend.Failure) -> Backend

    /// Whether its backends play a map locked to an external transport (JACK's, `--transport`): while the server is
    /// away nothing rolls, so the map is held where it was, and a new backend's first cycle puts it on the
    /// transport's frame (and resyncs MIDI receivers itself). False by default.
    var locksToTransport: Bool { get }
}

extension OutputDriver {
    public var locksToTransport: Bool { false }
}
