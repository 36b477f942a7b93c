import MetronomeModel
import MetronomePulse
import MetronomeTestSupport

/// The server underruns an in-process stream saw, each printed as a `live underrun:` line (the stream frame its
/// silence went in at and the write callbacks before it), as `reportedUnderruns` prints a `metronome --verbose`
/// run's: an underrun is never without its measured cause (.ci/test counts both lines).
func underruns(of output: PulseOutput) -> Int {
    for report in output.underrunReports { print("live underrun: " + report.description) }
    return output.underrunCount
}

/// The cause outside the product that explains an in-process stream's underruns, with their reports, for a repeat
/// (`repeatedOnlyForOutsideCauses`): as `PulseServer.VerboseReport.underrunsOutsideUs(lateEvents:)` judges a
/// binary's, from the structured reports. Every underrun has its report, the own doing (on the CPU, or all of it when
/// it waited) of every write callback in them and of the run's longest took under `PulseServer.callbackBound`, and no
/// event was late; otherwise nil (no underrun, or one that may be ours).
func underrunsOutsideUs(_ output: PulseOutput, lateEvents: Int) -> String? {
    let reports = output.underrunReports
    let bound = PulseServer.callbackBound
    let callbacks = reports.flatMap(\.callbacks).map { Duration.nanoseconds($0.own) }
    guard output.underrunCount > 0, lateEvents == 0, reports.count == output.underrunCount, !callbacks.isEmpty,
        callbacks.allSatisfy({ $0 < bound }), output.callbackTimings.longestOwn < bound
    else { return nil }
    return "\(output.underrunCount) server underrun(s), our write callbacks' own doing each under "
        + "\(PulseServer.callbackBoundMilliseconds) ms (the longest of the run "
        + "\(milliseconds(output.callbackTimings.longestOwn)) ms): " + reports.map(\.description).joined(separator: "; ")
}

/// What an in-process stream says of our write callbacks and late events, for a failure's message.
func ourFigures(_ output: PulseOutput, lateEvents: Int) -> String {
    "underruns \(output.underrunCount), late events \(lateEvents), the longest write callback "
        + "\(milliseconds(output.callbackTimings.longest)) ms, its own doing at most "
        + "\(milliseconds(output.callbackTimings.longestOwn)) ms (a repeat needs each under "
        + "\(PulseServer.callbackBoundMilliseconds) ms): "
        + output.underrunReports.map(\.description).joined(separator: "; ")
}

/// A duration in milliseconds, to the microsecond.
private func milliseconds(_ duration: Duration) -> Double { (duration.inSeconds * 1e6).rounded() / 1000 }
