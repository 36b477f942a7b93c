import Glibc
import MetronomeKit
import MetronomePulse

/// The host clock's error against PulseAudio's own timing: silence played for a while into a private daemon's null
/// sink through `PulseOutput`, and every 100 ms the mapping compared with a fresh answer from the server.
enum HostClockBenchmark {
    struct Report {
        var seconds: Int
        var samples: Int
        /// |mapping − pa_stream_get_time| in µs: median, p99, max.
        var againstTime: (median: Double, p99: Double, max: Double)
        /// |mapping − the server's report, stamped with its gettimeofday| in µs: median, p99, max.
        var againstReports: (median: Double, p99: Double, max: Double)
        /// The mapping's final rate against nominal, in ppm.
        var mappingPPM: Double
        /// The slope of PulseAudio's own reports over the run (least squares) against nominal, in ppm.
        var reportsPPM: Double
        /// The request's round trip in µs: median and max.
        var roundTrip: (median: Double, max: Double)
        var underruns: Int
    }

    static func run(scratch: String, seconds: Int) throws -> Report? {
        guard let server = PrivateServer(directory: scratch + "/pulse-clock") else { return nil }
        defer { server.stop() }
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 16))
        let output = try PulseOutput(
            mixer: mixer, server: server.environment["PULSE_SERVER"], latency: .milliseconds(20))
        defer { output.close() }
        let start = HostTime.now()
        var againstTime: [Double] = []
        var againstReports: [Double] = []
        var roundTrips: [Double] = []
        var reports: [(x: Double, y: Double)] = []
        var nextSample = start.nanoseconds
        while HostTime.now().nanoseconds - start.nanoseconds < Int64(seconds) * 1_000_000_000 {
            nextSample += 100_000_000
            var until = timespec(tv_sec: Int(nextSample / 1_000_000_000), tv_nsec: Int(nextSample % 1_000_000_000))
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil)
            guard let reference = output.pulseAudioPlayingFrame(), let mapping = output.mapping else { continue }
            againstTime.append(abs(error(of: mapping, at: reference.now)))
            againstReports.append(abs(error(of: mapping, at: reference.report)))
            roundTrips.append(Double(reference.roundTrip.components.attoseconds) / 1e12)
            reports.append(
                (Double(reference.report.hostTime.nanoseconds - start.nanoseconds) / 1e9, reference.report.frame))
        }
        guard let mapping = output.mapping, reports.count > 2 else { return nil }
        let meanX = reports.map(\.x).reduce(0, +) / Double(reports.count)
        let meanY = reports.map(\.y).reduce(0, +) / Double(reports.count)
        let slope =
            reports.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +)
            / reports.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        return Report(
            seconds: seconds, samples: againstTime.count, againstTime: summary(againstTime),
            againstReports: summary(againstReports), mappingPPM: (mapping.framesPerSecond / 48000 - 1) * 1e6,
            reportsPPM: (slope / 48000 - 1) * 1e6,
            roundTrip: (Measure.median(roundTrips), roundTrips.max() ?? 0), underruns: output.underrunCount)
    }

    /// How much later than `point.hostTime` the mapping says `point.frame` is heard, in microseconds.
    private static func error(of mapping: ClockMapping, at point: (hostTime: HostTime, frame: Double)) -> Double {
        let predicted =
            Double(mapping.hostTime.nanoseconds) + (point.frame - Double(mapping.frame)) * 1e9
            / mapping.framesPerSecond
        return (predicted - Double(point.hostTime.nanoseconds)) / 1000
    }

    private static func summary(_ values: [Double]) -> (median: Double, p99: Double, max: Double) {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)], sorted.last!)
    }
}
