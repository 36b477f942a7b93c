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
        (holds(recorded, offline), intervals(recorded), expected)
    }
    expectClean(result, sourceLocation: sourceLocation)
    return (recorded, offline)
}

/// Plays `metronome ARGUMENTS --verbose` live into `server`'s sink while recording it, and runs it again (at most
/// `attempts` runs, each repeat printed with its cause) only when the run failed and a cause outside the product
/// explains it (`outsideCause`).
/// - Parameter judge: the recording's own check (whether it passes), and its inter-onset intervals with those
///   expected, as many, which tell whether PipeWire's graph explains a failure.
/// - Returns: the kept run's result and the recording's left channel.
func playLiveRecorded(
    _ arguments: [String], server: some PulseProtocolServer, attempts: Int,
    sourceLocation: SourceLocation = #_sourceLocation,
    judge: ([Float]) -> (passes: Bool, found: [Int], expected: [Int])
) throws -> (result: CommandResult, recorded: [Float]) {
    try repeatedOnlyForOutsideCauses(attempts: attempts, sourceLocation: sourceLocation) {
        let recording = try server.startRecording()
        let result = try CommandRunner.run(arguments + ["--verbose"], environment: server.clientEnvironment)
        let recorded = try recording.finish()
        let (passes, found, expected) = judge(recorded)
        let cause = try outsideCause(result, recording, passes: passes, found: found, expected: expected)
        return LiveRun((result, recorded), outsideCause: cause)
    }
}

/// Why a live run of `metronome --verbose` may be repeated, with the figures; nil when it stands. A run stands when
/// it passes (exit 0, no late event, no underrun, `passes` for the recording), and when it fails in a way that may
/// be ours: a late event, an exit not 0, an underrun with a write callback of ours over `PulseServer.callbackBound`.
/// A failure is explained by underruns whose reports show our callbacks in time
/// (`PulseServer.VerboseReport.underrunsOutsideUs(lateEvents:)`) or, on PipeWire without an underrun, by the graph
/// cycles its profiler saw go wrong when the recording's intervals are off as the graph's silence puts them off
/// (`Recording.graphCyclesExplaining`). Prints each underrun's report (`live underrun:`).
/// - Throws: when PipeWire's profiler log cannot be read.
func outsideCause(
    _ result: CommandResult, _ recording: Recording, passes: Bool, found: [Int], expected: [Int]
) throws -> String? {
    let report = PulseServer.VerboseReport(standardError: result.standardError)
    _ = reportedUnderruns(result.standardError)
    if report.underruns > 0 { return report.underrunsOutsideUs() }
    guard result.status == 0, report.lateEvents == 0, report.underruns == 0, !passes else { return nil }
    return try recording.graphCyclesExplaining(intervals: found, expected: expected)
}

/// Checks a live run's exit and its `--verbose` report: exit 0, no late event, no underrun (with our callbacks'
/// figures when not).
func expectClean(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
    let report = PulseServer.VerboseReport(standardError: result.standardError)
    #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
    #expect(report.lateEvents == 0, "\(report.figures)", sourceLocation: sourceLocation)
    #expect(report.underruns == 0, "\(report.figures)", sourceLocation: sourceLocation)
}

/// Whether a recording, from its first onset on, holds `offline` sample for sample.
func holds(_ recorded: [Float], _ offline: [Float]) -> Bool {
    guard let start = onsets(recorded).first, recorded.count >= start + offline.count else { return false }
    return Array(recorded[start..<(start + offline.count)]) == offline
}

/// The frames between successive onsets.
func intervals(_ samples: [Float]) -> [Int] {
    let found = onsets(samples)
    return zip(found.dropFirst(), found).map { $0 - $1 }
}
