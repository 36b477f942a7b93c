import MetronomeKit
import MetronomePulse
import MetronomeTestSupport
import Testing

/// `LiveRun` as a library user writes it: what `metronome --bpm 240 --bars 2 --verbose` does, in a few lines.
@Suite("LiveRun: a live run composed by the library", .serialized)
struct LiveRunTests {
    /// A companion that records what the run told it.
    final class Witness: LiveCompanion {
        var calls: [String] = []
        func begin(session: Session, output: any OutputBackend) { calls.append("begin") }
        func resume(output: any OutputBackend) { calls.append("resume") }
        func stop() { calls.append("stop") }
        var reportLines: [String] { ["witness: \(calls.joined(separator: ", "))"] }
    }

    @Test(
        "Two bars of 4/4 at 240 played to their end through PulseAudio: eight clicks 12 000 frames apart, the run reached its end, its companion begun and stopped once, and the report carries the companion's line"
    )
    func playsAPlanToItsEnd() throws {
        let server = try PulseServer()
        let plan = try ClickPlan(
            try SettingForm([("--bpm", "240"), ("--bars", "2")]).clickRequest(.click(silent: false)).request)
        // Repeated only for underruns whose reports show our write callbacks in time (`underrunsOutsideUs`).
        let (recorded, result, witness) = try repeatedOnlyForOutsideCauses {
            let recording = try server.startRecording()
            let session = try plan.session(configuration: try plan.mixerConfiguration(), lookahead: nil, live: true)
            let witness = Witness()
            var run = LiveRun(
                session: session,
                driver: PulseDriver(server: server.address, device: nil, latency: PulseServer.testLatency))
            run.companions = [witness]
            run.verbose = true
            let result = try run.run(latency: { _ in PulseServer.testLatency })
            let recorded = try recording.finish()
            let report = PulseServer.VerboseReport(standardError: result.report.map { "metronome: \($0)\n" }.joined())
            return LiveAttempt((recorded, result, witness), outsideCause: report.underrunsOutsideUs())
        }
        guard case .reachedEnd = result.ending else {
            Issue.record("ended \(result.ending)")
            return
        }
        #expect(witness.calls == ["begin", "stop"])
        #expect(result.report.contains("witness: begin, stop"), "\(result.report)")
        #expect(result.report.contains("underruns reported by the server: 0"), "\(result.report)")
        #expect(result.report.contains("late events: 0"), "\(result.report)")
        let found = onsets(recorded)
        #expect(found.count == 8)
        #expect(zip(found.dropFirst(), found).map { $0 - $1 } == [Int](repeating: 12_000, count: 7))
    }
}
