import MetronomeLive
import MetronomeModel

extension PulseOutput {
    /// What `metronome --verbose` prints when live playback ends, one line each: the stream's buffer (`buffer`, as
    /// `bufferFrames` gave it when the stream started), the session's late events and its timer's ticks
    /// (`TickTimings`), the server's underruns and its
    /// reports, the write callbacks' timings, the measured latency, real-time priority and when the first audio was
    /// written; `extra` lines (a service's counts) go after the timings.
    ///
    /// After returns of the server the underruns, their reports and the write callbacks are the whole run's: those of
    /// the streams lost before this one (`earlier`, oldest first: `Reconnector.lostOutputs`) and this one's; a line
    /// says how many streams they cover (`dropped` lost streams the reconnector no longer kept are not counted, and
    /// the line says so). A run's underrun may be in any of its streams: a test that judges a run by its report sees
    /// them all (a click moved in the first stream was once reported as "0 underruns", the last stream's).
    public func report(
        session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String] = [],
        earlier: [PulseOutput] = [], dropped: Int = 0
    ) -> [String] {
        var lines: [String] = []
        if let buffer {
            let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond) / 1000
            let target = (Double(buffer.target) / rate * 10).rounded() / 10
            let request = (Double(buffer.minimumRequest) / rate * 10).rounded() / 10
            lines.append("stream buffer: target \(target) ms, minimum request \(request) ms")
        }
        let streams = earlier + [self]
        if streams.count > 1 || dropped > 0 {
            let uncounted = dropped > 0 ? "; \(dropped) earlier not counted" : ""
            lines.append("streams: \(streams.count + dropped), the server lost and back in between\(uncounted)")
        }
        lines.append("late events: \(session.mixer.lateEventCount)")
        lines.append(session.tickTimings.line)
        lines.append("underruns reported by the server: \(streams.reduce(0) { $0 + $1.underrunCount })")
        lines += streams.flatMap(\.underrunReports).map(\.description)
        let timings = streams.map(\.callbackTimings)
        let longest = timings.map(\.longest).max() ?? .zero
        let longestOwn = timings.map(\.longestOwn).max() ?? .zero
        let widest = timings.map(\.widestGap).max() ?? .zero
        // The callback behind "own at most": its CPU time, its waits and its page faults say which it was, its frames
        // how much it had to render, its start and time from start to end when it ran (set against the machine's
        // stalls by the live tests).
        let slowest = streams.max { $0.callbackTimings.longestOwn < $1.callbackTimings.longestOwn }?
            .longestOwnCallbackUsage
        let usage = slowest.map {
            "; that one \(Self.milliseconds($0.onCPU)) ms on the CPU, \($0.waits) waits, \($0.pageFaults) page faults, "
                + "\($0.frames) frames, from monotonic \($0.start) ns for \(Self.milliseconds($0.duration)) ms"
        }
        lines.append(
            "write callbacks: \(timings.reduce(0) { $0 + $1.count }), the longest \(Self.milliseconds(longest)) ms "
                + "(own at most \(Self.milliseconds(longestOwn)) ms: on the CPU, or waiting\(usage ?? "")), the widest "
                + "gap between two \(Self.milliseconds(widest)) ms")
        lines += extra
        // The clock fit's account: reports it left out as stamped late, and restarts (each moves what the mapping
        // places by its shift; the largest is given, in ms, positive when the new fit hears a frame later).
        let restarts = streams.reduce(0) { $0 + $1.clockRestarts.load(ordering: .relaxed) }
        let shift = streams.map { $0.clockLargestRestartShift.load(ordering: .relaxed) }.max { abs($0) < abs($1) } ?? 0
        lines.append(
            "clock fit: \(streams.reduce(0) { $0 + $1.clockLeftOut.load(ordering: .relaxed) }) reports left out, "
                + "\(restarts) restarts after reports left out in a row"
                + (restarts > 0 ? " (the largest moved the clock \(Double(shift) / 1000) ms)" : ""))
        if let latency {
            lines.append("measured latency: \((latency.inSeconds * 10_000).rounded() / 10) ms")
        }
        lines.append("real-time priority: \(hasRealTimePriority ? "yes" : "no")")
        if let first = firstWriteNanoseconds {
            lines.append("first audio written at monotonic \(first) ns")
        }
        return lines
    }

    /// A duration in milliseconds, to the hundredth.
    private static func milliseconds(_ duration: Duration) -> Double { (duration.inSeconds * 100_000).rounded() / 100 }
}

extension PulseOutput: ReportingOutput {
    /// Asks the server for the latency now (`measureLatency`).
    public func refreshLatency() { measureLatency() }

    /// The line after a reconnect: the server (and its sink) back, on the same beat grid.
    public var backLine: String {
        let sink = sinkName.map { " (sink '\($0)')" } ?? ""
        return "PulseAudio at \(serverDescription) is back\(sink); playing on the same beat grid"
    }
}
