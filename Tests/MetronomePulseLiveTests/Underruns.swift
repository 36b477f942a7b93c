import MetronomePulse

/// The server underruns an in-process stream saw, each printed as a `live underrun:` line (the stream frame its
/// silence went in at and the write callbacks before it), as `reportedUnderruns` prints a `metronome --verbose`
/// run's: a repeated live run is then never without its measured cause (.ci/test counts both lines).
func underruns(of output: PulseOutput) -> Int {
    for report in output.underrunReports { print("live underrun: " + report.description) }
    return output.underrunCount
}
