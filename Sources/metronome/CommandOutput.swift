import MetronomeJack
import MetronomeKit
import MetronomePulse
import MetronomeService

/// What a live command needs of its output beyond the seam: the figures it reports with `--verbose` and the line it
/// prints when the server is back. PulseAudio's and JACK's outputs give them.
protocol CommandOutput: OutputBackend, ServiceOutput {
    /// The buffer the output started with, for the report (PulseAudio's target and minimum request, in frames).
    var bufferFrames: (target: Int, minimumRequest: Int)? { get }
    /// Refreshes the latency figure before the report (PulseAudio asks the server; JACK's is always current).
    func refreshLatency()
    /// `--verbose`'s lines at the end, `extra` (a service's counts) among them; `earlier` are the streams lost before
    /// this one (`Reconnector.lostOutputs`), `dropped` those the reconnector no longer kept.
    func report(
        session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String], earlier: [Self], dropped: Int
    ) -> [String]
    /// The line after a reconnect: what is back, and that the beat grid is the old one.
    var backLine: String { get }
}

extension PulseOutput: CommandOutput {
    func refreshLatency() { measureLatency() }

    var backLine: String {
        let sink = sinkName.map { " (sink '\($0)')" } ?? ""
        return "PulseAudio at \(serverDescription) is back\(sink); playing on the same beat grid"
    }
}

extension JackOutput: CommandOutput, ServiceOutput {
    /// JACK has no stream buffer: its period is reported instead (`report`).
    var bufferFrames: (target: Int, minimumRequest: Int)? { nil }

    /// JACK's report counts the cycles the server ran without calling us and the late transport joins over the whole
    /// run itself (`JackOutput.runCounts`, shared by the clients of one run); its other figures are the last client's.
    func report(
        session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String], earlier: [JackOutput],
        dropped: Int
    ) -> [String] {
        report(session: session, buffer: buffer, extra: extra)
    }

    func refreshLatency() {}

    /// Names the ports a takeover is still to connect to (their clients are not back yet), if any.
    var backLine: String {
        let pending = pendingPorts
        let when = pending.count == 1 ? "it is" : "they are"
        let waiting =
            pending.isEmpty ? "" : "; \(pending.joined(separator: ", ")) not there yet: connecting when \(when)"
        return "the JACK server '\(serverName)' is back; playing on the same beat grid" + waiting
    }
}
