import MetronomeEngine

/// What a live run reports of its output beyond the seam (`LiveRun`): the figures `--verbose` prints and the line
/// printed when the server is back. PulseAudio's and JACK's outputs give them.
public protocol ReportingOutput: OutputBackend {
    /// The buffer the output started with, for the report (PulseAudio's target and minimum request, in frames); nil
    /// for an output with none (JACK reports its period instead).
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
