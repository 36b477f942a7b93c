import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The live checks that matter most, against what most desktops run now: PipeWire's PulseAudio server
/// (`pipewire-pulse`, with WirePlumber), private and headless (`PipeWireServer`), each checked as the PulseAudio tests
/// check theirs. A run whose checks fail is played again (at most five runs, each repeat printed with its cause) when
/// the server reported underruns whose reports show our write callbacks in time, or when PipeWire's own profiler saw
/// a graph cycle late or a node unfinished after the first 250 ms for each interval off and every interval off is
/// off by whole graph quanta, moving every click after it (`Recording.graphCyclesExplaining`): in such a cycle the
/// graph can put a quantum of silence into the sink or into the recorder's stream, or drop one from the recorder's,
/// and tell no PulseAudio client (no underrun, no move in the timing reports). Measured: a gap in 3 of 224 runs beside a CPU load; each of the two gaps the profiler watched came
/// in a run where it flagged 4 late cycles (docs/benchmarks.md, "PipeWire: what its profiler can and cannot tell").
/// A run whose checks pass stands whatever the profiler said; a click of ours late or early alone, a late event, a
/// slow write callback or a gap in a run the profiler found clean fails.
@Suite("Live playback through PipeWire's PulseAudio server (pipewire-pulse)", .serialized)
struct PipeWireLiveTests {
    // 3 s at 240 BPM, not 10 s at 120: a dozen clicks prove every interval exact and the recording equal to the
    // render as well as twenty did, in 7 s less.
    @Test(
        "3 s at 240 BPM: every inter-onset interval is exactly 12000 frames, no click missing, and the recording equals the offline render"
    )
    func steadyClickIsFrameExact() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["--bpm", "240", "--duration", "3", "--quiet"], server: server, scratch: scratch, attempts: 5)
        let found = onsets(recorded)
        #expect(found.count == 12)
        #expect(intervals(recorded) == [Int](repeating: 12000, count: 11))
        #expect(onsets(offline) == Array(stride(from: 0, to: 144_000, by: 12000)))
        expectRecording(recorded, fromItsFirstOnsetEquals: offline)
    }

    @Test(
        "The shipped pattern four-three (a 4-against-3 cowbell layer over 3/4) played live is bit-identical to its render"
    )
    func shippedPatternLive() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["play", "four-three", "--bars", "3", "--quiet"], server: server, scratch: scratch, attempts: 5)
        // Both layers sound, and nothing else: the 3/4 beats 32000 frames apart (90 BPM) and the cowbell's four to a
        // bar of 96000 frames, 24000 apart.
        let beats = Set(stride(from: 0, to: 288_000, by: 32000))
        let cowbell = Set(stride(from: 0, to: 288_000, by: 24000))
        #expect(onsets(offline) == beats.union(cowbell).sorted())
        expectRecording(recorded, fromItsFirstOnsetEquals: offline)
    }

    @Test(
        "pipewire-pulse grants 1.5× the latency asked for, 16 ms at least, and the clicks stay exact at the floor",
        arguments: [
            ([String](), "target 30.0 ms, minimum request 10.0 ms"),
            (["--latency", "5"], "target 16.0 ms, minimum request 5.3 ms"),
        ])
    func grantedLatency(latency: [String], granted: String) throws {
        let server = try PipeWireServer()
        let expected = [Int](repeating: 12000, count: 11)
        let (result, recorded) = try playLiveRecorded(
            ["--bpm", "240", "--duration", "3", "--quiet"] + latency, server: server, attempts: 5
        ) { recorded in
            (intervals(recorded) == expected, intervals(recorded), expected, nil)
        }
        expectClean(result)
        #expect(result.standardError.contains("metronome: stream buffer: \(granted)\n"))
        let found = onsets(recorded)
        #expect(found.count == 12)
        #expect(intervals(recorded) == expected)
    }

    @Test(
        "serve --wait steered with oscsend: /metronome/play, then /metronome/tempo f 90 lands on a beat of the 120 BPM grid, every interval exact, /metronome/quit exits 0"
    )
    func serveSteeredOverOSC() throws {
        let server = try PipeWireServer()
        let (quit, result, found) = try repeatedOnlyForOutsideCauses(attempts: 5) {
            let recording = try server.startRecording()
            let (serve, port) = try startServe(["--wait", "--bpm", "120"], server: server)
            #expect(try oscsend(port, "/metronome/play").status == 0)
            usleep(1_300_000)
            #expect(try oscsend(port, "/metronome/tempo", "f", "90").status == 0)
            usleep(3_000_000)
            #expect(try oscsend(port, "/metronome/quit").status == 0)
            let quit = poll(atMost: 5) { serve.hasExited }
            if !quit { serve.send(SIGINT) }
            let result = serve.wait()
            let found = onsets(try recording.finish())
            // Its recording's check, for the profiler's rule: beats of 120, then of 90, each interval exact.
            let steps = zip(found.dropFirst(), found).map { $0 - $1 }
            let expected = steps.map { abs($0 - 24000) <= abs($0 - 32000) ? 24000 : 32000 }
            let change = steps.firstIndex { $0 != 24000 } ?? steps.count
            let passes =
                change >= 2 && steps.count - change >= 4 && steps[change...].allSatisfy { $0 == 32000 }
                && (found[change] - found[0]) % 24000 == 0
            let cause = try outsideCause(result, recording, passes: passes, found: steps, expected: expected)
            return LiveAttempt((quit, result, found), outsideCause: quit ? cause : nil)
        }
        #expect(quit)
        expectClean(result)
        let steps = zip(found.dropFirst(), found).map { $0 - $1 }
        let change = try #require(steps.firstIndex { $0 != 24000 }, "intervals: \(steps)")
        // Sent 1.3 s after play: at least two beats of 120 before it, and the change on one of their grid's beats.
        #expect(change >= 2, "intervals: \(steps)")
        #expect((found[change] - found[0]) % 24000 == 0)
        // 3 s at 90 BPM: at least four beats 32000 frames apart, and nothing else.
        #expect(steps.count - change >= 4, "intervals: \(steps)")
        #expect(steps[change...].allSatisfy { $0 == 32000 }, "intervals: \(steps)")
    }

    @Test(
        "pipewire-pulse killed and started again while playing, PipeWire and the recording going on: one line each way, every interval a whole beat but the gap, and the first click after the return within two graph quanta (512 frames) of the old grid — not to the frame as with PulseAudio: an open defect"
    )
    func pulseServerRestartKeepsTheGrid() throws {
        let server = try PipeWireServer()
        // Repeated only when PipeWire's profiler saw graph cycles go wrong and the intervals are off by the whole
        // quanta such a cycle puts in or takes out, as the other PipeWire runs are (the suite's note).
        let (result, samples, returned) = try repeatedOnlyForOutsideCauses(attempts: 5) {
            let recording = try server.startRecording()
            let command = try CommandRunner.start(
                ["--bpm", "120", "--quiet", "--verbose"], environment: server.clientEnvironment)
            #expect(try waitUntilPlaying(server))
            usleep(1_600_000)
            server.killPulse(SIGKILL)
            #expect(poll(atMost: 2) { command.errorOutput == lostLine(server) })
            // More than two beats without a server: those clicks are skipped.
            usleep(1_300_000)
            try server.restartPulse()
            let back = now()
            #expect(poll(atMost: 3) { command.errorOutput == lostLine(server) + backLine(server) })
            let returned = now() - back
            print("pipewire-pulse back → stream playing again: \(Int(returned * 1000)) ms")
            usleep(2_200_000)
            command.send(SIGINT)
            let result = command.wait()
            let samples = try recording.finish()
            let found = onsets(samples)
            let steps = zip(found.dropFirst(), found).map { $0 - $1 }
            // The gap (longer than a beat and a half) is the return's, checked below; every other interval a beat.
            let expected = steps.map { $0 > 36000 ? $0 : 24000 }
            let passes = isOnTheGridAcrossReturns(samples, returns: 1, clicks: 6, within: 512)
            let cause =
                result.status == 0 && !passes
                ? try recording.graphCyclesExplaining(intervals: steps, expected: expected) : nil
            return LiveAttempt((result, samples, returned), outsideCause: cause)
        }
        #expect(returned < 1)
        #expect(result.status == 0)
        // The two lines, then --verbose's report; its return line gives no bound for either clock: pipewire-pulse's
        // reports carry its last graph cycle's position, which may come before the request (`OutputBackend.alignment`).
        #expect(
            result.standardError.hasPrefix(lostLine(server) + backLine(server) + "metronome: stream buffer: "),
            "\(result.standardError)")
        let comparison = result.standardError.split(separator: "\n").first { $0.hasPrefix("metronome: return 1: ") }
        #expect(
            comparison?.hasSuffix("(each clock's least-delayed report within unbounded new, unbounded lost)") == true,
            "\(result.standardError)")
        // Measured (17 runs): the first click after the return from 33 frames late to 321 early (beside a build),
        // never within 2; with the graph's quantum forced to 64 frames -50 to 19, to 1024 -646. pipewire-pulse answers
        // a timing request with the read index and delay of its last graph cycle and stamps the answer with the time
        // it is sent, so each report is late by up to a quantum (256 frames here), and the new stream's first 250 ms
        // of reports carry a different share of that than the lost stream's line (docs/live.md, PipeWire). The check
        // is held here to what the reconnect gives on PipeWire today, two quanta, not PulseAudio's 2 frames: the
        // defect is open (docs/live.md) and this bound only catches it growing.
        expectOnTheGridAcrossReturns(samples, returns: 1, clicks: 6, within: 512)
    }

    @Test(
        "All of PipeWire killed and started again while playing: one line each way, and each recording holds whole clicks on their grid"
    )
    func wholeServerRestart() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        // Repeated only when the new stream's underruns are the server's (its --verbose report shows our write
        // callbacks in time: CI at a133415, 1536 frames of silence inside a click after the return, no report to tell
        // whose), or when each recording with a finding departs from the click train only by the whole quanta a
        // troubled graph cycle puts in, takes out or silences, each weighed by its own profiler, and nothing else
        // failed (local runs at 055657e: [24000, 24000, 24256] after, 1 in 4; CI at 4272361: [23488, 24000] before
        // the kill; CI at 4473320: 256 frames missing inside a click after the return, the whole clicks around it
        // [48256, 24000] apart).
        let train = try clickTrain(scratch: scratch)
        let (result, before, after, returned) = try repeatedOnlyForOutsideCauses(attempts: 5) {
            let run = try killedAndStartedAgain(
                server, arguments: ["--verbose"], lines: (lostLine(server), backLine(server)), name: "PipeWire",
                scratch: scratch, kill: { server.kill(SIGKILL) }, restart: server.restart)
            let report = PulseServer.VerboseReport(standardError: run.result.standardError)
            let cause: String? =
                if run.result.status != 0 || run.findings.isEmpty {
                    nil
                } else if report.underruns > 0 {
                    report.underrunsOutsideUs()
                } else {
                    Self.graphCyclesExplaining(
                        run.findings,
                        recordings: [
                            ("before", run.first, run.before, partialLast: true),
                            ("after", run.second, run.after, partialLast: false),
                        ], train: train)
                }
            if cause == nil, !run.findings.isEmpty, run.result.status == 0, report.underruns == 0 {
                let troubled = [run.first, run.second].map { (try? $0.troubledGraphCycles()).map(String.init) ?? "?" }
                print("live finding: graph cycles troubled before and after: \(troubled)")
            }
            return LiveAttempt((run.result, run.before, run.after, run.returned), outsideCause: cause)
        }
        #expect(returned < 1)
        #expect(result.status == 0)
        #expect(result.standardError.hasPrefix(lostLine(server) + backLine(server)), "\(result.standardError)")
        #expect(
            result.standardError.contains("metronome: underruns reported by the server: "),
            "no --verbose report: \(result.standardError)")
        try expectWholeClicks(before: before, after: after, scratch: scratch)
    }

    /// The cause outside the product of a run whose every finding is a recording's ("before: …", "after: …"), when
    /// each recording with a finding departs from the click train only as troubled graph cycles its own profiler saw
    /// explain (`clickTrainDepartures`, `Recording.graphCyclesExplaining(departures:)`); nil when any finding is
    /// another or unexplained, or a profiler's log cannot be read whole (one cut short by its end is no explanation).
    static func graphCyclesExplaining(
        _ findings: [String],
        recordings: [(name: String, recording: Recording, samples: [Float], partialLast: Bool)], train: [Float]
    ) -> String? {
        guard findings.allSatisfy({ finding in recordings.contains { finding.hasPrefix("\($0.name): ") } })
        else { return nil }
        var causes: [String] = []
        for (name, recording, samples, partialLast) in recordings
        where findings.contains(where: { $0.hasPrefix("\(name): ") }) {
            guard let departures = clickTrainDepartures(samples, partialLast: partialLast, train: train),
                let cause = (try? recording.graphCyclesExplaining(departures: departures)) ?? nil
            else { return nil }
            causes.append("\(name): \(cause)")
        }
        return causes.isEmpty ? nil : causes.joined(separator: "; ")
    }
}

/// How a PipeWire run's graph cycles are judged (`Recording.troubledCycles(inProfilerLog:)`), on lines shaped as
/// pw-profiler 0.3.65 writes them (here with two followers' columns, not its 64).
@Suite("pw-profiler's log, as the PipeWire runs read it")
struct ProfilerLogTests {
    /// A cycle: the driver's four columns, then each follower's eight (blank when it took no part).
    private func cycle(_ driver: [String], _ followers: [[String]?]) -> String {
        (driver + followers.flatMap { $0 ?? Array(repeating: " ", count: 8) }).joined(separator: "\t") + "\t"
    }

    @Test(
        "A late cycle (pw-profiler's 1.4-quanta mark) and a follower left unfinished are troubled; on-time cycles and blank followers are not, nor anything in the first 250 ms"
    )
    func troubledCycles() throws {
        let finished = ["44", "50", "63", "93", "13", "30", "3", "0"]
        let unfinished = ["51", "40", "0", "0", "0", "0", "1", "0"]
        // 46 cycles of 5333 µs are 245 ms: the graph starting, the streams joining; a late and an unfinished one.
        let start =
            [
                cycle(["7466", "7466", "0", "5333"], [nil, nil]),
                cycle(["5334", "120", "0", "5333"], [unfinished, nil]),
            ]
            + Array(repeating: cycle(["5333", "120", "0", "5333"], [finished, nil]), count: 44)
        let playing = [
            cycle(["5328", "137", "0", "5333"], [finished, nil]),
            cycle(["7466", "7466", "0", "5333"], [finished, nil]),  // late
            cycle(["5334", "120", "0", "5333"], [finished, unfinished]),
            cycle(["5340", "5340", "0", "5333"], [finished, finished]),  // equal but not above 1.3 quanta
            cycle(["547", "46", "0", "5333"], [["47", "10", "0", "0", "0", "0", "2", "0"], nil]),  // awake, not done
        ]
        #expect(try Recording.troubledCycles(inProfilerLog: (start + playing).joined(separator: "\n")) == 3)
        #expect(try Recording.troubledCycles(inProfilerLog: start.joined(separator: "\n")) == 0)
        #expect(try Recording.troubledCycles(inProfilerLog: (start + [playing[0]]).joined(separator: "\n")) == 0)
        #expect(throws: Recording.ProfilerLogError.self) {
            try Recording.troubledCycles(inProfilerLog: (start + ["logging 660 samples"]).joined(separator: "\n"))
        }
    }
}

/// Which recorded intervals a PipeWire graph cycle can explain (`Recording.wholeQuantaOfSilence`).
@Suite("Intervals off by a graph quantum, as the PipeWire runs judge them")
struct GraphQuantumTests {
    @Test(
        "A quantum put in or dropped moves every click after it and is explained; a click moved alone (late or early), another amount or a click more is not"
    )
    func wholeQuanta() {
        let beats = [Int](repeating: 24000, count: 6)
        func off(_ changes: [Int: Int], count: Int = 6) -> [String]? {
            let found = (0..<count).map { 24000 + (changes[$0] ?? 0) }
            return Recording.wholeQuantaOfSilence(in: found, against: beats)
        }
        #expect(off([:]) == nil)
        #expect(off([1: 256]) == ["#1: 24256 (24000)"])
        #expect(off([0: -256, 3: 512]) == ["#0: 23744 (24000)", "#3: 24512 (24000)"])
        #expect(off([2: 256, 3: -256]) == nil, "a click 256 frames late")
        #expect(off([2: -256, 3: 256]) == nil, "a click 256 frames early")
        #expect(off([2: 100]) == nil)
        #expect(off([2: 5 * 256]) == nil)
        #expect(off([:], count: 7) == nil)
    }
}

/// The line `metronome` writes when it loses `server`.
private func lostLine(_ server: PipeWireServer) -> String {
    "metronome: lost the connection to PulseAudio at \(server.address) (PULSE_SERVER); retrying for 30 s "
        + "(--reconnect-timeout)\n"
}

/// The line `metronome` writes when `server` is back.
private func backLine(_ server: PipeWireServer) -> String {
    "metronome: PulseAudio at \(server.address) (PULSE_SERVER) is back (sink 'metro'); playing on the same beat grid\n"
}

/// Checks that a recording, from its first onset on, holds the offline render, sample for sample.
private func expectRecording(
    _ recorded: [Float], fromItsFirstOnsetEquals offline: [Float], sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let start = onsets(recorded).first else {
        Issue.record("nothing was recorded", sourceLocation: sourceLocation)
        return
    }
    #expect(recorded.count >= start + offline.count, sourceLocation: sourceLocation)
    if recorded.count >= start + offline.count {
        #expect(Array(recorded[start..<(start + offline.count)]) == offline, sourceLocation: sourceLocation)
    }
}

/// Starts `metronome serve --osc 127.0.0.1:0 --quiet --verbose ARGUMENTS` into `server` and reads the port it chose
/// from its `listening for OSC` line (10 s at most).
private func startServe(_ arguments: [String], server: PipeWireServer) throws -> (ChildProcess, port: Int) {
    let serve = try CommandRunner.start(
        ["serve", "--osc", "127.0.0.1:0", "--quiet", "--verbose"] + arguments, environment: server.clientEnvironment)
    let prefix = "metronome: listening for OSC on udp 127.0.0.1:"
    var port: Int?
    poll(atMost: 10) {
        port = serve.errorOutput.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
            Int($0.dropFirst(prefix.count))
        }
        return port != nil || serve.hasExited
    }
    return (serve, try #require(port, "serve did not listen: \(serve.errorOutput)"))
}

/// Sends one OSC message with liblo's `oscsend` to 127.0.0.1:`port`.
private func oscsend(_ port: Int, _ message: String...) throws -> CommandResult {
    try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port)] + message).wait()
}

/// Which departures of a recording from its render a PipeWire graph cycle can explain (`Recording.wholeQuantaEdits`).
@Suite("A recording off its render by a graph quantum, as the PipeWire runs judge it")
struct GraphQuantumEditTests {
    /// A render: two clicks of 600 ramped samples, 2000 frames apart, in 5000 frames.
    let render: [Float] = (0..<5000).map { frame in
        let inClick = frame % 2000
        return frame < 4000 && inClick < 600 ? Float(inClick + 1) / 600 : 0
    }

    @Test(
        "Silence of whole quanta put in, whole quanta taken out or replaced by silence, inside a click or before one, is explained; a changed sample, another length, an early end or a fifth departure is not"
    )
    func edits() {
        let quantum = Recording.graphQuantum
        let zeros = [Float](repeating: 0, count: quantum)
        #expect(Recording.wholeQuantaEdits(in: render[...], against: render) == nil)
        // A quantum of silence inside the last click: no onset moves.
        let inserted: [Float] = Array(render[..<2300]) + zeros + Array(render[2300...])
        #expect(
            Recording.wholeQuantaEdits(in: inserted[...], against: render)?.map(\.description)
                == ["silence of 256 frames put in at frame 2300"])
        // Two quanta before the second click (in silence: found where the click should start), one taken out.
        let beforeClick: [Float] = Array(render[..<1000]) + zeros + zeros + Array(render[1000...])
        #expect(
            Recording.wholeQuantaEdits(in: beforeClick[...], against: render)?.map(\.description)
                == ["silence of 512 frames put in at frame 2000"])
        let taken: [Float] = Array(render[..<100]) + Array(render[(100 + quantum)...])
        #expect(
            Recording.wholeQuantaEdits(in: taken[...], against: render)?.map(\.description)
                == ["256 frames taken out at frame 100"])
        // A quantum of the first click replaced by silence, the clicks in place; and one begun before the second
        // click, in the render's silence.
        let replaced: [Float] = Array(render[..<300]) + zeros + Array(render[(300 + quantum)...])
        #expect(
            Recording.wholeQuantaEdits(in: replaced[...], against: render)?.map(\.description)
                == ["256 frames replaced by silence at frame 300"])
        let replacedEarly: [Float] = Array(render[..<1900]) + zeros + Array(render[(1900 + quantum)...])
        #expect(
            Recording.wholeQuantaEdits(in: replacedEarly[...], against: render)?.map(\.description)
                == ["256 frames replaced by silence at frame 1900"])
        // Not a graph's: a sample changed, 192 frames of silence, the recording ending early, five departures.
        var changed = render
        changed[2100] = 0.5
        #expect(Recording.wholeQuantaEdits(in: changed[...], against: render) == nil)
        let short: [Float] = Array(render[..<2300]) + [Float](repeating: 0, count: 192) + Array(render[2300...])
        #expect(Recording.wholeQuantaEdits(in: short[...], against: render) == nil)
        #expect(Recording.wholeQuantaEdits(in: render[..<4500], against: render) == nil)
        let replacedShort: [Float] = Array(render[..<300]) + [Float](repeating: 0, count: 192) + Array(render[492...])
        #expect(Recording.wholeQuantaEdits(in: replacedShort[...], against: render) == nil)
        // Departures a quantum and more apart in a render with no silence: four are explained, five are not.
        let tone: [Float] = (0..<5000).map { (frame: Int) -> Float in Float(frame % 1000 + 1) / 1000 }
        func departures(_ count: Int) -> [Float] {
            var recorded = Array(tone[..<300])
            for start in stride(from: 300, to: 300 * (count + 1), by: 300) {
                recorded += zeros + Array(tone[start..<(start + 300)])
            }
            return recorded + Array(tone[(300 * (count + 1))...])
        }
        #expect(Recording.wholeQuantaEdits(in: departures(4)[...], against: tone)?.count == 4)
        #expect(Recording.wholeQuantaEdits(in: departures(5)[...], against: tone) == nil)
    }

    @Test(
        "A recording of clicks against their train, from the bar's third beat or its first: a quantum taken out inside an accent and two put in before the next click (CI at 4473320), or two taken out before a click, are explained; a click moved alone by a quantum or by 480 frames, the first click cut at its start or the last at its end by a quantum, or nothing off, are not"
    )
    func clickTrain() {
        // 6 bars at 120 BPM: a 3000-frame accent on each bar's first beat, a 2000-frame normal click on the others.
        let train: [Float] = (0..<(24 * 24000)).map { frame in
            let (beat, into) = frame.quotientAndRemainder(dividingBy: 24000)
            let length = beat % 4 == 0 ? 3000 : 2000
            return into < length ? Float(into + 1) / Float(length) * (beat % 4 == 0 ? 1 : 0.5) : 0
        }
        let lead = [Float](repeating: 0, count: 30000)
        let tail = [Float](repeating: 0, count: 14400)
        let quantum = [Float](repeating: 0, count: 256)
        // From the bar's third beat: normal, normal, accent, normal.
        let heard = Array(train[48000..<(48000 + 72000 + 2000)])
        #expect(clickTrainDepartures(lead + heard + tail, partialLast: false, train: train) == nil)
        let edited =
            lead + Array(heard[..<49522]) + Array(heard[49778..<72000]) + quantum + quantum + Array(heard[72000...])
            + tail
        #expect(
            clickTrainDepartures(edited, partialLast: false, train: train)?.map(\.description)
                == ["256 frames taken out at frame 49522", "silence of 512 frames put in at frame 72000"])
        // Ours: the second click a quantum late alone (silence put in before it, taken out before the next), the last
        // click 480 frames late, the first cut at its start, the last cut at its end.
        let movedAlone =
            lead + Array(heard[..<24000]) + quantum + Array(heard[24000..<(48000 - 256)]) + Array(heard[48000...])
            + tail
        #expect(clickTrainDepartures(movedAlone, partialLast: false, train: train) == nil)
        let late = lead + Array(heard[..<72000]) + [Float](repeating: 0, count: 480) + Array(heard[72000...]) + tail
        #expect(clickTrainDepartures(late, partialLast: false, train: train) == nil)
        #expect(clickTrainDepartures(lead + Array(heard[256...]) + tail, partialLast: false, train: train) == nil)
        let cutAtItsEnd = lead + Array(heard[..<(74000 - 256)]) + tail
        #expect(clickTrainDepartures(cutAtItsEnd, partialLast: false, train: train) == nil)
        let cut = lead + Array(heard[..<72600]) + tail
        #expect(clickTrainDepartures(cut, partialLast: false, train: train) == nil)
        // Before a kill: the last click, cut by the recorder's end, is left out; two quanta taken out before the
        // second click are explained.
        let killed = lead + Array(train[..<23488]) + Array(train[24000..<48700])
        #expect(
            clickTrainDepartures(killed, partialLast: true, train: train)?.map(\.description)
                == ["512 frames taken out at frame 23488"])
        #expect(
            clickTrainDepartures(lead + Array(train[..<48700]), partialLast: true, train: train) == nil)
        // How far each kind moves what follows, and the render's frames it covers.
        let (putIn, takenOut, replaced) = (
            QuantumEdit(.silencePutIn, frames: 512, at: 72000), QuantumEdit(.takenOut, frames: 256, at: 49522),
            QuantumEdit(.replacedBySilence, frames: 256, at: 300)
        )
        #expect([putIn.shift, takenOut.shift, replaced.shift] == [Int]([512, -256, 0]))
        #expect([putIn.span, takenOut.span, replaced.span] == [Int]([0, 256, 256]))
    }
}
