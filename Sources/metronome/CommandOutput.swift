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
    /// `--verbose`'s lines at the end, `extra` (a service's counts) among them.
    func report(session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String]) -> [String]
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

    func refreshLatency() {}

    /// Names the ports a takeover is still to connect to (their clients are not back yet), if any.
    var backLine: String {
        let pending = pendingPorts
        let when = pending.count == 1 ? "it is" : "they are"
        let waiting =
            pending.isEmpty ? "" : "; \(pending.joined(separator: ", ")) not there yet: connecting when \(when)"
        return "the JACK server '\(serverName)' is back; playing on the same beat grid" + waiting
    }

    /// The client, its period and rate, late events, xruns, process callbacks, the ports' latency and the first
    /// period's time.
    func report(session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String]) -> [String] {
        let rate = session.mixer.configuration.sampleRate.framesPerSecond
        let milliseconds = (Double(periodFrames) * 10_000 / Double(rate)).rounded() / 10
        var lines = [
            "JACK: client '\(clientName)' on server '\(serverName)', period \(periodFrames) frames (\(milliseconds) ms) "
                + "at \(rate) Hz",
            "late events: \(session.mixer.lateEventCount)",
            "xruns reported by the server: \(underrunCount)",
            "process callbacks: \(cycleCount)",
            // The run's: a client before a reconnect counted too (the live tests repeat a run with any).
            "cycles the server ran without calling us: \(runCounts.missedCycles)",
            "transport starts joined late: \(runCounts.lateTransportJoins)",
            "longest process callback: \(longestCallback.nanoseconds / 1000) µs (cycle \(longestCallback.cycle))",
            "longest callback on the CPU: \(longestCallbackOnCPUNanoseconds / 1000) µs",
            "process callbacks over half a period: \(slowCallbackCount)",
            // Ours running too long, not the machine's: the live tests never repeat a run with one.
            "callbacks over half a period of our own (on the CPU or waiting that long): \(slowOfOurOwnCount)",
            "MIDI messages dropped: \(droppedMIDICount)",
            "MIDI input: \(session.midiInputLatency) frames from arrival to sound, "
                + "\(session.lateMIDIInputCount) messages late, \(session.ignoredMIDIInputCount) notes ignored while "
                + "the transport was stopped, \(session.droppedMIDIInputCount) dropped with the inbox full",
        ]
        lines += extra
        if let latency = latencyFrames {
            lines.append("playback latency of the ports: \(latency) frames")
        }
        if let first = firstWriteNanoseconds {
            lines.append("first audio written at monotonic \(first) ns")
        }
        return lines
    }
}
