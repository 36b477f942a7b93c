import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// What a client counted and measured while it ran, for `--verbose` and the tests: xruns, cycles, the longest
/// and slow callbacks, missed cycles, allocations on the real-time path, latency, and why the client was lost.
extension JackOutput {
    /// xruns the server reported since the client started. Any thread.
    public var underrunCount: Int { xruns.load(ordering: .relaxed) }

    /// Process cycles run so far. Any thread.
    public var cycleCount: Int { cycles.load(ordering: .relaxed) }

    /// The longest process callback so far (its first call left out: the runtime's one-time set-up), in
    /// nanoseconds, and which cycle it was (counting from 0); what to hold against the period when the server
    /// reports our client late. Any thread.
    public var longestCallback: (nanoseconds: Int64, cycle: Int) {
        (longest.load(ordering: .relaxed), longestCycle.load(ordering: .relaxed))
    }

    /// Cycles the server ran without calling our process callback (our client was late on the one before, or the
    /// server skipped it): each one moves everything after it a period later against the server's frames, as an
    /// underrun does on PulseAudio. Any thread.
    public var missedCycleCount: Int { missed.load(ordering: .relaxed) }

    /// A run of cycles the server played without frames of ours: `cycles` periods before the one at `frameTime`.
    /// Either the server ran them without calling us (`moved`: we render on from where we were, so every frame after
    /// is heard `cycles` periods later against the server's frames, but for an output that follows a clock on
    /// `midi_in` or locks to the JACK transport, which render the missed frames into nothing), or a call of ours was
    /// woken after the next cycle had begun (it read that cycle's frame time, and the cycle's own call came right
    /// after with the same one): the frames that call rendered are not heard and nothing after moves. Either way the
    /// server's frames `frameTime − cycles × period ..< frameTime` hold nothing fresh of ours (silence, or the
    /// period before played again).
    public struct MissedCycles: Sendable, Equatable {
        /// `jack_last_frame_time` of the first cycle after the run.
        public var frameTime: UInt32
        /// How many cycles the run was.
        public var cycles: Int
        /// Whether the frames after the run are heard `cycles` periods later (the server ran the cycles without
        /// calling us), or stay where they were (a call of ours woken late).
        public var moved: Bool
    }

    /// Where the server played cycles without frames of ours (`missedCycleCount` counts them), the first 1024 runs of
    /// them. A run is known at the call after the one that found it (it may turn out a late call); one found in the
    /// last cycle is added when the client closes. Any thread.
    public var missedCycles: [MissedCycles] { missedLog.entries }

    /// For each process call of ours that ended after the server had begun a later cycle, the frame time of the
    /// newest cycle begun (the first 1024 such calls). A client after ours in the graph, such as a recorder, may have
    /// been run in that cycle before our call wrote its ports, and read the period before again: so the live tests
    /// judged on a recording leave that cycle's frames out, as a late call's (docs/jack.md, "How it is tested").
    /// `--verbose` counts them all beside the callbacks' times. Any thread.
    public var callsEndedLate: [UInt32] { endedLateLog.entries.map(\.frameTime) }

    /// Process callbacks (the first left out) that ran longer than half the period they rendered. Any thread.
    public var slowCallbackCount: Int { slow.load(ordering: .relaxed) }

    /// Callbacks (process, sync, timebase; the first left out) that ran longer than half a period and were on the CPU
    /// more than half a period, or waited (gave the CPU up, or waited for a page): slow of our own. The others were
    /// preempted: the machine ran something else on the CPU meanwhile. Any thread.
    public var slowOfOurOwnCount: Int { slowOfOurOwn.load(ordering: .relaxed) }

    /// The longest time on the CPU of one callback, in nanoseconds (process, sync, timebase; the first left out). Any
    /// thread.
    public var longestCallbackOnCPUNanoseconds: Int64 { longestOnCPU.load(ordering: .relaxed) }

    /// Whether the server shut down or dropped the client. Any thread.
    public var isLost: Bool { shutDown.load(ordering: .acquiring) }

    /// Why, once `isLost`.
    public var loss: JackError? {
        guard isLost else { return nil }
        let text = String(cString: reason)
        return .lost(server: serverName, reason: text.isEmpty ? "the server shut down" : text)
    }

    /// When the first period was rendered, in `CLOCK_MONOTONIC` nanoseconds; nil before.
    public var firstWriteNanoseconds: Int64? {
        let value = firstWrite.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// The ports' playback latency (frames between a period's render and its sound), or nil before it is known.
    public var latencyFrames: SampleTime? {
        let value = latency.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }

    /// Allocations in process callbacks after the first. Any thread.
    public var callbackAllocations: UInt64 { allocations.load(ordering: .relaxed) }

    /// Allocations in the first process callback (the runtime's one-time set-up). Any thread.
    public var firstCallbackAllocations: UInt64 { firstAllocations.load(ordering: .relaxed) }

    /// What `metronome --verbose` prints when live playback through JACK ends, one line each: the client, its period
    /// and rate, the session's late events and its timer's ticks (`TickTimings`), the server's xruns, the process callbacks and their timings, the cycles
    /// the server ran without calling us, MIDI, `extra` lines (a service's counts), the ports' latency and when the
    /// first period was written. `buffer` is ignored: JACK has no stream buffer (its period is reported instead), as
    /// PulseAudio's `report` takes one.
    public func report(session: Session, buffer: (target: Int, minimumRequest: Int)? = nil, extra: [String] = [])
        -> [String]
    {
        let rate = session.mixer.configuration.sampleRate.framesPerSecond
        let milliseconds = (Double(periodFrames) * 10_000 / Double(rate)).rounded() / 10
        var lines = [
            "JACK: client '\(clientName)' on server '\(serverName)', period \(periodFrames) frames (\(milliseconds) ms) "
                + "at \(rate) Hz",
            "late events: \(session.mixer.lateEventCount)",
            session.tickTimings.line,
            "xruns reported by the server: \(underrunCount)",
            "process callbacks: \(cycleCount)",
            // The run's: a client before a reconnect counted too. Then this client's runs of them, where (the frame
            // time of the cycle after each) and how many: the live tests hold what we sent to the frames they moved.
            "cycles the server ran without calling us: \(runCounts.missedCycles)"
                + (missedCycles.isEmpty
                    ? ""
                    : " (this client's, at frame times: "
                        + missedCycles.map { "\($0.frameTime)×\($0.cycles)\($0.moved ? "" : " late")" }
                        .joined(separator: ", ") + ")"),
            "transport starts joined late: \(runCounts.lateTransportJoins)",
            "longest process callback: \(longestCallback.nanoseconds / 1000) µs (cycle \(longestCallback.cycle))",
            "longest callback on the CPU: \(longestCallbackOnCPUNanoseconds / 1000) µs",
            "frames the process callback longest on the CPU rendered into nothing (a catch-up or a skip): "
                + "\(longestOnCPUIntoNothing.load(ordering: .relaxed))",
            "process callbacks that faulted a page in, after the first: \(faultingCycles.load(ordering: .relaxed))"
                + (faultingCycles.load(ordering: .relaxed) > 0
                    ? " (the first: cycle \(firstFaultingCycle.load(ordering: .relaxed)))" : ""),
            "process callbacks over half a period: \(slowCallbackCount)",
            "process callbacks that ended after the next cycle began: \(endedLateCount.load(ordering: .relaxed))",
            // Ours running too long, not the machine's: the live tests never repeat a run with one.
            "callbacks over half a period of our own (on the CPU or waiting that long): \(slowOfOurOwnCount)",
            "MIDI messages dropped: \(droppedMIDICount)",
        ]
        if clockInput != nil {
            lines.append("cycles the server called us twice (the second left out): \(runCounts.repeatedCycles)")
        }
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

extension JackOutput: ReportingOutput {
    /// JACK has no stream buffer. Its target is what the server may render between two ticks of the scheduler that
    /// are on time, two periods (`coveredLatency`), which the session's lookahead covers from the start and again when
    /// the server comes back, perhaps at another period (`LiveRun`); a request is a period. The report gives the
    /// period instead (`report`).
    public var bufferFrames: (target: Int, minimumRequest: Int)? { (2 * periodFrames, periodFrames) }

    /// JACK's report counts the cycles the server ran without calling us and the late transport joins over the whole
    /// run itself (`JackOutput.runCounts`, shared by the clients of one run); its other figures are the last client's.
    public func report(
        session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String], earlier: [JackOutput],
        dropped: Int
    ) -> [String] {
        report(session: session, buffer: buffer, extra: extra)
    }

    /// JACK's latency is always current.
    public func refreshLatency() {}

    /// The line after a reconnect; names the ports a takeover is still to connect to (their clients are not back
    /// yet), if any.
    public var backLine: String {
        let pending = pendingPorts
        let when = pending.count == 1 ? "it is" : "they are"
        let waiting =
            pending.isEmpty ? "" : "; \(pending.joined(separator: ", ")) not there yet: connecting when \(when)"
        return "the JACK server '\(serverName)' is back; playing on the same beat grid" + waiting
    }
}
