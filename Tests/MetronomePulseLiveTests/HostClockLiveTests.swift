import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomePulse
import MetronomeTestSupport
import Testing

/// Silence played into a private server's null sink through the library, at `latency`: a mixer with nothing to play.
private func silentOutput(_ server: PulseServer, latency: Duration = .milliseconds(20)) throws -> PulseOutput {
    let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 16))
    return try PulseOutput(mixer: mixer, server: server.address, latency: latency)
}

/// Polls every millisecond until `condition` holds or `seconds` pass.
private func wait(atMost seconds: Double, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1000)
    }
    return true
}

/// How much later than `point.hostTime` the mapping says `point.frame` is heard, in microseconds.
private func error(of mapping: ClockMapping, at point: (hostTime: HostTime, frame: Double)) -> Double {
    let predicted =
        Double(mapping.hostTime.nanoseconds) + (point.frame - Double(mapping.frame)) * 1e9 / mapping.framesPerSecond
    return (predicted - Double(point.hostTime.nanoseconds)) / 1000
}

private func median(_ values: [Double]) -> Double { values.map(abs).sorted()[values.count / 2] }

@Suite("The host clock of a live PulseAudio stream", .serialized)
struct HostClockLiveTests {
    @Test("The mapping is known within 100 ms and hears now a frame 0–40 ms behind the last one written")
    func mappingAppearsAndAccountsForLatency() throws {
        let server = try PulseServer()
        let output = try silentOutput(server)
        defer { output.close() }
        #expect(wait(atMost: 0.1) { output.mapping != nil })
        usleep(200_000)
        let mapping = try #require(output.mapping)
        let heard = mapping.frame(at: HostTime.now())
        let written = output.mixer.framePosition
        // The stream buffers up to its 20 ms target (960 frames); the null sink adds well under a millisecond.
        #expect(written - heard > 0)
        #expect(written - heard <= 1920)
        for frame in heard - 100_000...heard + 100_000 {
            if mapping.frame(at: mapping.hostTime(ofFrame: frame)) != frame { Issue.record("frame \(frame)") }
        }
    }

    @Test(
        "Over 6 s the mapping agrees with the server's reports (median within 100 µs) and with pa_stream_get_time (median within 400 µs); rate within 50 ppm"
    )
    func mappingAgreesWithPulseAudio() throws {
        let server = try PulseServer()
        // An underrun restarts the fit, so the rate would not be measured over 5 s: the kept run must have none. A
        // run with one is repeated only when its reports show our write callbacks in time (the stream's buffer ran
        // dry because the server did not ask: `underrunsOutsideUs`); this mixer plays nothing, so no event can be
        // late. The stream plays at the live tests' 100 ms (`PulseServer.testLatency`), not 20: what is checked is
        // the fit against the server's reports, which the buffer's length does not enter, and a 20 ms stream ran dry
        // in all three runs of CI at 7eafc93 (the server asked nothing for 33 ms, every callback of ours under 0.15
        // ms, the machine's wake-ups up to 35 ms late in that lane).
        let run = try repeatedOnlyForOutsideCauses {
            let output = try silentOutput(server, latency: PulseServer.testLatency)
            defer { output.close() }
            let appeared = wait(atMost: 0.1) { output.mapping != nil }
            var againstTime: [Double] = []
            var againstReports: [Double] = []
            let deadline = Date().addingTimeInterval(6)
            while Date() < deadline {
                usleep(50_000)
                guard let reference = output.pulseAudioPlayingFrame(), let mapping = output.mapping else { continue }
                againstTime.append(error(of: mapping, at: reference.now))
                againstReports.append(error(of: mapping, at: reference.report))
            }
            let run = (
                appeared: appeared, againstTime: againstTime, againstReports: againstReports,
                rate: output.mapping?.framesPerSecond, underruns: underruns(of: output),
                figures: ourFigures(output, lateEvents: 0)
            )
            return LiveAttempt(run, outsideCause: underrunsOutsideUs(output, lateEvents: 0))
        }
        #expect(run.appeared)
        #expect(run.againstTime.count > 80)
        #expect(median(run.againstReports) < 100)
        #expect(median(run.againstTime) < 400)
        let rate = try #require(run.rate)
        #expect(abs(rate / 48000 - 1) < 50e-6)
        #expect(run.underruns == 0, "\(run.figures)")
    }
}
