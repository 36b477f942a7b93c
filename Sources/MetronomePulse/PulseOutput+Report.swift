import MetronomeLive
import MetronomeModel

extension PulseOutput {
    /// What `metronome --verbose` prints when live playback ends, one line each: the stream's buffer (`buffer`, as
    /// `bufferFrames` gave it when the stream started), the session's late events, the server's underruns and its
    /// reports, the write callbacks' timings, the measured latency, real-time priority and when the first audio was
    /// written; `extra` lines (a service's counts) go after the timings.
    public func report(session: Session, buffer: (target: Int, minimumRequest: Int)?, extra: [String] = []) -> [String]
    {
        var lines: [String] = []
        if let buffer {
            let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond) / 1000
            let target = (Double(buffer.target) / rate * 10).rounded() / 10
            let request = (Double(buffer.minimumRequest) / rate * 10).rounded() / 10
            lines.append("stream buffer: target \(target) ms, minimum request \(request) ms")
        }
        lines.append("late events: \(session.mixer.lateEventCount)")
        lines.append("underruns reported by the server: \(underrunCount)")
        lines += underrunReports.map(\.description)
        let timings = callbackTimings
        lines.append(
            "write callbacks: \(timings.count), the longest \(Self.milliseconds(timings.longest)) ms, the widest gap "
                + "between two \(Self.milliseconds(timings.widestGap)) ms")
        lines += extra
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
