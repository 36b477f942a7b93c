import Foundation
import MetronomeEngine
import MetronomeModel
import MetronomeTestSupport
import Testing

/// Time-tagged bundles and beat subscriptions of `metronome serve`, against the recording of a private server's sink.
@Suite(
    "metronome serve: timed bundles and beat subscriptions, live through a real PulseAudio server", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeTimedLiveTests {
    /// Sends `address f 180` at 240 BPM in a bundle tagged half a beat before bar 2 (the first beat at or after the
    /// tag), from the time tags of beats 1.2 and 1.3. (At 120 and 90 BPM the same run took twice as long.)
    private func tempoAtBar2(_ address: String, server: PulseServer) throws -> ServeRun<BeatsReport> {
        try serveAndRecord(["--bpm", "240"], server: server) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 2))
                b = until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 3))
                interval = int(b["tag"]) - int(beats[-2]["tag"])
                send_at(int(b["tag"]) + 2 * interval - interval // 2, ARGS[0], 180.0)
                until_beat(lambda bar, beat, tempo: (bar, beat) == (3, 2))
                finish()
                """, port: port, [address], as: BeatsReport.self)
        }
    }

    @Test(
        "klick's /klick/simple/set_tempo does what /metronome/tempo does: the same change at the same beat, the same recording"
    )
    func klickSetTempoEqualsMetronomeTempo() throws {
        let server = try PulseServer()
        let ours = try tempoAtBar2("/metronome/tempo", server: server)
        let klicks = try tempoAtBar2("/klick/simple/set_tempo", server: server)
        expectClean(ours)
        expectClean(klicks)
        let expected =
            Array(stride(from: 0, to: 48000, by: 12000)) + Array(stride(from: 48000, to: 144_000, by: 16000))
        for run in [ours, klicks] {
            #expect(Array(run.onsetFrames.prefix(expected.count)) == expected)
            let heard = run.report.beats.map { "\($0.bar).\($0.beat)@\(Int($0.tempo))" }
            #expect(
                Array(heard.drop { $0 != "1.2@240" })
                    == [
                        "1.2@240", "1.3@240", "1.4@240", "2.1@180", "2.2@180", "2.3@180", "2.4@180", "3.1@180",
                        "3.2@180",
                    ])
        }
        let frames = min(ours.onsetFrames.last ?? 0, klicks.onsetFrames.last ?? 0)
        expectRecording(ours.recording, equals: klicks.recording, frames: frames)
    }

    @Test(
        "A chord bundle tagged at the next beat's host time (the last beat's tag plus the last interval) starts on that beat's click frame, bit for bit"
    )
    func chordBundleLandsOnBeat() throws {
        struct Report: Decodable {
            var beats: [HeardBeat]
            var target: String
            var state: [String: StateValue]
        }
        let server = try PulseServer()
        // Its release at the quit counts late, so a repeat asks for none before the quit, as the checks below do.
        let beforeQuit = { (report: Report) -> Int in
            report.state["late_events"]?.number.map { (count: Double) -> Int in Int(count) } ?? -1
        }
        let run = try serveAndRecord(["--bpm", "120"], server: server, lateEvents: beforeQuit) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 3))
                b = until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 4))
                target = 2 * int(b["tag"]) - int(beats[-2]["tag"])
                send_at(target, "/metronome/chord", "C")
                until_beat(lambda bar, beat, tempo: (bar, beat) == (2, 3))
                finish(target=str(target), state=query())
                """, port: port, as: Report.self)
        }
        #expect(run.result.status == 0)
        let verbose = PulseServer.VerboseReport(standardError: run.result.standardError)
        #expect(verbose.underruns == 0, "\(verbose.figures)")
        #expect(verbose.slowCallback == nil)
        // Before the quit: the bundle was on time and no event late. (At the quit the held chord's release is
        // counted late in --verbose's report, which this run's exit therefore does not check.)
        #expect(run.report.state["late_events"]?.number == 0)
        #expect(run.report.state["late_bundles"]?.number == 0)
        // The tag, against the service's own time tag for bar 2 (frame 96000), in frames: where the chord belongs.
        let heard = try #require(run.report.beats.first { ($0.bar, $0.beat) == (2, 1) })
        let target = HeardBeat(bar: 2, beat: 1, tempo: 120, tag: run.report.target)
        let error = target.nanoseconds - heard.nanoseconds
        let expected: Int = Int((Double(error) * 48000 / 1e9).rounded())
        // Up to beat 2.3 (frame 144000), heard before the client sent its query and the quit.
        let frames = 144_000
        #expect(run.recording.count >= frames)
        let recorded = Array(run.recording.prefix(frames))
        let chord = try ChordSymbol(parsing: "C").notes(octave: 4, inversion: 0)
        // Which chord frame the recording holds: the offline render with the chord there equals it bit for bit.
        let matching = try (-3...3).filter { (offset: Int) throws -> Bool in
            let offline = try offlineServe(map: .steady(tempo: BPM(120)), frames: frames) { queue in
                for note in chord {
                    queue.noteOn(note, velocity: 100, at: SampleTime(96000 + offset), holdFrames: 96000)
                }
            }
            return offline == recorded
        }
        print("serve chord: tag − bar 2's tag \(error) ns (\(expected) frames); recording matches offsets \(matching)")
        #expect(matching == [expected])
    }

    @Test(
        "oscdump subscribed with oscsend gets every beat for 4 s: consecutive bars and beats, tempo 120, time tags 500 ms apart"
    )
    func oscdumpGetsEveryBeat() throws {
        let server = try PulseServer()
        // Repeated only for underruns whose reports show our write callbacks in time and no event late.
        let (lines, printed, result) = try repeatedOnlyForOutsideCauses {
            let run = try dumpBeats(server: server)
            _ = reportedUnderruns(run.result.standardError)
            let report = PulseServer.VerboseReport(standardError: run.result.standardError)
            return LiveAttempt(run, outsideCause: report.outsideUs())
        }
        let report = PulseServer.VerboseReport(standardError: result.standardError)
        #expect(result.status == 0)
        #expect(report.underruns == 0, "\(report.figures)")
        #expect(report.slowCallback == nil)
        try #require(lines.count >= 9, "oscdump printed: \(printed)")
        // `RECEIVED /metronome/beat iift BAR BEAT TEMPO TAG`, times as hexadecimal `SECONDS.FRACTION`.
        let fields = lines.prefix(9).map { $0.split(separator: " ").dropFirst().map { $0 } }
        #expect(fields.allSatisfy { $0.count == 6 && $0[1] == "iift" && $0[4] == "120.000000" })
        let numbers = fields.compactMap { field -> Int? in
            guard let bar = Int(field[2]), let beat = Int(field[3]) else { return nil }
            return (bar - 1) * 4 + beat - 1
        }
        // From bar 1 beat 1 (started after the subscription), none missing, none twice.
        #expect(numbers == Array(0..<9))
        let tags = fields.compactMap { field -> Int64? in
            let parts = field[5].split(separator: ".")
            guard parts.count == 2, let seconds = UInt64(parts[0], radix: 16),
                let fraction = UInt64(parts[1], radix: 16)
            else { return nil }
            return HeardBeat(bar: 0, beat: 0, tempo: 0, tag: String(seconds << 32 | fraction)).nanoseconds
        }
        #expect(tags.count == 9)
        let spacing = intervals(tags.map(Int.init))
        print("oscdump beat spacing − 500 ms (ns): \(spacing.map { $0 - 500_000_000 })")
        // Host-clock times: 500 ms apart to within the clock mapping's drift and re-fits.
        #expect(spacing.allSatisfy { abs($0 - 500_000_000) < 1_000_000 })
    }

    /// `oscdump` subscribed with `oscsend` to a `serve --wait`, started with `oscsend /metronome/play`, until it has
    /// printed 9 beats (at most 15 s); then `/metronome/quit`. Returns oscdump's beat lines, all it printed, and the
    /// service's exit.
    private func dumpBeats(server: PulseServer) throws -> (
        lines: [Substring], printed: String, result: CommandResult
    ) {
        let listener = try UDPPort()
        let port = listener.port
        listener.close()
        let dump = try ChildProcess("/usr/bin/oscdump", ["-L", String(port)])
        let serve = try ServeProcess(["--wait", "--bpm", "120"], server: server)
        let service = String(serve.port)
        let subscribe = try ChildProcess(
            "/usr/bin/oscsend", ["127.0.0.1", service, "/metronome/subscribe", "si", "127.0.0.1", String(port)])
        #expect(subscribe.wait().status == 0)
        #expect(try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", service, "/metronome/play"]).wait().status == 0)
        var lines: [Substring] = []
        let deadline = Date().addingTimeInterval(15)
        while lines.count < 9, Date() < deadline {
            usleep(20_000)
            lines = dump.output.split(separator: "\n").filter { $0.contains(" /metronome/beat ") }
        }
        #expect(try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", service, "/metronome/quit"]).wait().status == 0)
        let result = serve.child.wait()
        dump.send(SIGTERM)
        dump.wait()
        return (lines, dump.output, result)
    }
}
