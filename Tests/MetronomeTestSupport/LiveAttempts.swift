import Testing

/// Live runs share a 2-core machine with whatever else runs. A server underrun inserts silence and shifts a recording,
/// so an exact comparison of that run says nothing about the engine. Its measured cause is outside the product: in
/// every underrun caught beside a build, our write callbacks answered each request within microseconds and the server
/// stopped asking for 17–110 ms (its main thread, at normal priority, waited for the CPU; docs/benchmarks.md,
/// "Live-test underruns and retries"); on a quiet machine none was seen. A run with an underrun is therefore repeated, up to
/// three times; the checks then apply to the first run without one, and its underrun count is still asserted to be
/// 0 by the caller. Never silently: every repeat prints a `live retry:` line with the test's place and the run's
/// underruns (after the `live underrun:` lines `reportedUnderruns` printed for the run: where each silence went in
/// and the write callbacks before it), and .ci/test counts them in its closing lines.
public func firstRunWithoutUnderruns<T>(
    attempts: Int = 3, cause: String = "server underrun(s)", sourceLocation: SourceLocation = #_sourceLocation,
    _ run: () throws -> (value: T, underruns: Int)
) rethrows -> (value: T, underruns: Int) {
    var last = try run()
    var attempt = 1
    while last.underruns > 0, attempt < attempts {
        print(
            "live retry: \(sourceLocation.fileName):\(sourceLocation.line): run \(attempt) had \(last.underruns) "
                + "\(cause); running it again")
        last = try run()
        attempt += 1
    }
    return last
}

/// As `firstRunWithoutUnderruns`, for a run that awaits.
public func firstRunWithoutUnderruns<T>(
    attempts: Int = 3, cause: String = "server underrun(s)", sourceLocation: SourceLocation = #_sourceLocation,
    _ run: () async throws -> (value: T, underruns: Int)
) async rethrows -> (value: T, underruns: Int) {
    var last = try await run()
    var attempt = 1
    while last.underruns > 0, attempt < attempts {
        print(
            "live retry: \(sourceLocation.fileName):\(sourceLocation.line): run \(attempt) had \(last.underruns) "
                + "\(cause); running it again")
        last = try await run()
        attempt += 1
    }
    return last
}

/// The cycles a JACK server ran without calling our client, as `metronome --driver jack --verbose` reported them
/// (each moves what follows a period later against the server's frames), or -1 when the line is missing.
public func reportedMissedCycles(_ standardError: String) -> Int {
    let prefix = "metronome: cycles the server ran without calling us: "
    guard let line = standardError.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return -1 }
    return Int(line.dropFirst(prefix.count)) ?? -1
}

/// The times a JACK transport rolled before the session was on its frame, as `metronome --driver jack --verbose`
/// reported them (what fell in between is not heard: the transport already rolled when our client came, or the
/// server's sync timeout ran out while an overloaded machine kept the session from its seek), or -1 when the line is
/// missing.
public func reportedLateTransportJoins(_ standardError: String) -> Int {
    let prefix = "metronome: transport starts joined late: "
    guard let line = standardError.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return -1 }
    return Int(line.dropFirst(prefix.count)) ?? -1
}

/// The underrun count `metronome --verbose` reported, or -1 when the line is missing; prints each underrun's report
/// as a `live underrun:` line.
public func reportedUnderruns(_ standardError: String) -> Int {
    let prefix = "metronome: underruns reported by the server: "
    let lines = standardError.split(separator: "\n")
    // Each underrun's report (`--verbose`): the stream frame its silence went in at, the write callbacks before it.
    for report in lines where report.hasPrefix("metronome: underrun at stream frame") {
        print("live underrun: " + report.dropFirst("metronome: ".count))
    }
    guard let line = lines.first(where: { $0.hasPrefix(prefix) }) else { return -1 }
    return Int(line.dropFirst(prefix.count)) ?? -1
}
