import MetronomeEngine

/// What a live run reports of its output beyond the seam (`LiveRun`): the figures `--verbose` prints and the line
/// printed when the server is back. PulseAudio's and JACK's outputs give them.
public protocol ReportingOutput: OutputBackend {
    /// The buffer the output started with, in frames: its target, the most the server may render between two ticks
    /// of the scheduler that are on time, which the session's lookahead covers (PulseAudio's target latency as
    /// granted; JACK's two periods), and its minimum request; for the report too. Nil for an output with none.
    var bufferFrames: (target: Int, minimumRequest: Int)? { get }
    /// Refreshes the latency figure before the report (PulseAudio asks the server; JACK's is always current).
    func refreshLatency()
    /// `--verbose`'s lines at the end, `extra` (companions' and followers' lines) among them; `earlier` are the
    /// outputs lost before this one (`Reconnector.lostOutputs`), `dropped` those the reconnector no longer kept.
    func report(
        session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String], earlier: [Self], dropped: Int
    ) -> [String]
    /// The line after a reconnect: what is back, and that the beat grid is the old one.
    var backLine: String { get }
}
