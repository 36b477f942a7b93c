import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Renders `metronome ARGUMENTS` with `--output`, then plays them live into `server`'s sink (with `--verbose`,
/// repeated only for a cause outside the product: `playLiveRecorded`, the recording's check being that it holds the
/// render from its first onset on) and expects a clean run: exit 0, no late event, no underrun.
/// - Returns: the recording's left channel and the render's.
func playLiveAndRender(
    _ arguments: [String], server: some PulseProtocolServer, scratch: Scratch, attempts: Int = 3,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (recorded: [Float], offline: [Float]) {
    let rendered = scratch.file("offline-\(arguments.count).wav")
    #expect(try CommandRunner.run(arguments + ["--output", rendered]).status == 0, sourceLocation: sourceLocation)
    let offline = try AudioFileReader.read(path: rendered).channels[0]
    let expected = intervals(offline)
    let (result, recorded) = try playLiveRecorded(
        arguments, server: server, attempts: attempts, sourceLocation: sourceLocation
    ) { recorded in
        let start = onsets(recorded).first ?? 0
        return (holds(recorded, offline), intervals(recorded), expected, (recorded[start...], offline))
    }
    expectClean(result, sourceLocation: sourceLocation)
    return (recorded, offline)
}

/// Plays `metronome ARGUMENTS --verbose` live into `server`'s sink while recording it, and runs it again (at most
/// `attempts` runs, each repeat printed with its cause) only when the run failed and a cause outside the product
/// explains it (`outsideCause`).
/// - Parameter judge: the recording's own check (whether it passes), its inter-onset intervals with those expected,
///   as many, and for a recording checked sample for sample the part that should hold the render with the render:
///   these tell whether PipeWire's graph explains a failure.
/// - Returns: the kept run's result and the recording's left channel.
func playLiveRecorded(
    _ arguments: [String], server: some PulseProtocolServer, attempts: Int,
    sourceLocation: SourceLocation = #_sourceLocation,
    judge: ([Float]) -> (passes: Bool, found: [Int], expected: [Int], samples: (ArraySlice<Float>, [Float])?)
) throws -> (result: CommandResult, recorded: [Float]) {
    try repeatedOnlyForOutsideCauses(attempts: attempts, sourceLocation: sourceLocation) {
        let recording = try server.startRecording()
        let result = try CommandRunner.run(
            server.withTestLatency(arguments) + ["--verbose"], environment: server.clientEnvironment)
        let recorded = try recording.finish()
        let (passes, found, expected, samples) = judge(recorded)
        let cause = try outsideCause(
            result, recording, passes: passes, found: found, expected: expected, samples: samples)
        return LiveAttempt((result, recorded), outsideCause: cause)
    }
}

/// Why a live run of `metronome --verbose` may be repeated, with the figures; nil when it stands. A run stands when
/// it passes (exit 0, no late event, no underrun, `passes` for the recording), and when it fails in a way that may
/// be ours: a late event not after a stalled tick of the scheduler, or with a slow tick
/// (`PulseServer.VerboseReport.lateEventsOutsideUs`: a click pushed late by a fault of ours in the same run as such
/// late events is not told apart, but the last run is judged as it is), an exit not 0, an underrun with a write
/// callback of ours whose
/// own doing took `PulseServer.callbackBound` or more, a slow callback the machine did not stop inside
/// (`PulseServer.VerboseReport.slowCallbackOutsideUs`).
/// A failure is explained by underruns whose reports show our callbacks in time
/// (`PulseServer.VerboseReport.underrunsOutsideUs(lateEvents:)`) or, on PipeWire without an underrun, by the graph
/// cycles its profiler saw go wrong when the recording's intervals are off as the graph's silence puts them off
/// (`Recording.graphCyclesExplaining`), or the recording's departures from a render as such silence makes them. A
/// failure left unexplained prints what the recording shows (`live finding:`): a test that fails says why. Prints each
/// underrun's report (`live underrun:`).
/// - Throws: when PipeWire's profiler log cannot be read.
func outsideCause(
    _ result: CommandResult, _ recording: Recording, passes: Bool, found: [Int], expected: [Int],
    samples: (recorded: ArraySlice<Float>, reference: [Float])? = nil
) throws -> String? {
    let report = PulseServer.VerboseReport(standardError: result.standardError)
    _ = reportedUnderruns(result.standardError)
    if report.underruns > 0 { return report.underrunsOutsideUs() }
    if result.status == 0, report.lateEvents > 0 { return report.lateEventsOutsideUs() }
    // Everything else right, a write callback charged 2 ms or more: the machine's only when it stopped inside it.
    if result.status == 0, report.lateEvents == 0, report.underruns == 0, passes, report.slowCallback != nil {
        return report.slowCallbackOutsideUs(machine: MachineStalls.read())
    }
    guard result.status == 0, report.lateEvents == 0, report.underruns == 0, !passes else { return nil }
    if let cause = try recording.graphCyclesExplaining(intervals: found, expected: expected) { return cause }
    if let samples,
        let cause = try recording.graphCyclesExplaining(recorded: samples.recorded, reference: samples.reference)
    {
        return cause
    }
    var finding = "no underrun, no late event; intervals \(found == expected ? "as expected" : "\(found)")"
    if let samples,
        let first = zip(samples.recorded, samples.reference).enumerated().first(where: { $1.0 != $1.1 })?.offset
    {
        let zeros = samples.recorded.dropFirst(first).prefix { $0 == 0 }.count
        finding += "; the recording departs from the render at its frame \(first), with \(zeros) zero frames there"
    }
    if recording.profiler != nil { finding += "; graph cycles troubled: \(try recording.troubledGraphCycles())" }
    print("live finding: \(finding)")
    return nil
}

/// Checks a live run's exit and its `--verbose` report: exit 0, no late event, no underrun (with our callbacks'
/// figures when not).
func expectClean(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
    let report = PulseServer.VerboseReport(standardError: result.standardError)
    #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
    #expect(report.lateEvents == 0, "\(report.figures)", sourceLocation: sourceLocation)
    #expect(report.underruns == 0, "\(report.figures)", sourceLocation: sourceLocation)
    #expect(report.slowCallback == nil, sourceLocation: sourceLocation)
}

/// Whether a recording, from its first onset on, holds `offline` sample for sample for as long as it lasts, and what
/// it did not reach of `offline` is silence (a live play ends when its last voice has died away; a render of a MIDI
/// file lasts a fixed 2 s past the file's end).
func holds(_ recorded: [Float], _ offline: [Float]) -> Bool {
    guard let start = onsets(recorded).first else { return false }
    let heard = min(recorded.count - start, offline.count)
    return recorded[start..<(start + heard)].elementsEqual(offline[..<heard])
        && offline[heard...].allSatisfy { $0 == 0 }
}

/// The frames between successive onsets.
func intervals(_ samples: [Float]) -> [Int] {
    let found = onsets(samples)
    return zip(found.dropFirst(), found).map { $0 - $1 }
}
