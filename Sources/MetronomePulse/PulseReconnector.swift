import MetronomeEngine
import MetronomeLive
import MetronomeModel

/// Opens PulseAudio streams with fixed settings: where new streams go after a loss (`Reconnector`).
public struct PulseDriver: OutputDriver, Sendable {
    /// The server address (nil: PULSE_SERVER or the default server; never autospawned).
    public var server: String?
    /// The sink (nil: the server's default sink).
    public var device: String?
    /// The streams' target latency.
    public var latency: Duration

    /// Creates a driver.
    /// - Parameters:
    ///   - server: the server address (nil: PULSE_SERVER or the default server).
    ///   - device: the sink (nil: the server's default sink).
    ///   - latency: the target latency.
    public init(server: String? = nil, device: String? = nil, latency: Duration = .milliseconds(20)) {
        self.server = server
        self.device = device
        self.latency = latency
    }

    /// Opens a stream on the server (`PulseOutput.init`).
    /// - Parameters:
    ///   - mixer: supplies every frame.
    ///   - timeout: how long the server may take to answer, and again to accept the stream.
    ///   - isCancelled: polled every 10 ms while waiting: true gives up (`PulseError.cancelled`).
    ///   - takeover: for a stream that takes over a running mixer on a beat grid.
    /// - Returns: the playing stream.
    /// - Throws: `PulseError.cannotConnect`, `.timedOut`, `.cancelled`, `.noSuchSink` or `.streamFailed`.
    public func open(mixer: Mixer, timeout: Duration, isCancelled: () -> Bool, takeover: OutputTakeover?)
        throws(PulseError) -> PulseOutput
    {
        try PulseOutput(
            mixer: mixer, server: server, device: device, latency: latency, timeout: timeout,
            isCancelled: isCancelled, beforeStreaming: takeover?.beforeStreaming ?? {}, catchUp: takeover?.catchUp,
            skipLimit: takeover?.skipLimit)
    }
}

/// Keeps a live session playing through PulseAudio when the server or the sink goes away (`Reconnector`).
public typealias PulseReconnector = Reconnector<PulseDriver>

extension Reconnector where Driver == PulseDriver {
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
        self.init(
            output: output, session: session, driver: PulseDriver(server: server, device: device, latency: latency),
            timeout: timeout, tryTimeout: tryTimeout)
    }
}

extension PulseOutput: OutputBackend {}
