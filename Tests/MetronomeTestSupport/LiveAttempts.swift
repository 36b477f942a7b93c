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

/// What one live run gave, for `repeatedOnlyForOutsideCauses`: the run's value, and why it may be run again.
public struct LiveRun<Value> {
    /// What the run gave; the caller's checks apply to the kept run's.
    public var value: Value
    /// nil when the run stands: its checks pass, or they fail in a way that may be ours (which must then fail the
    /// test). Otherwise the cause outside the product that explains what the run got wrong, with its figures (the
    /// server's own late cycle inside the checked window, an underrun whose report shows our callbacks answered in
    /// time, a recorder's missed cycle), printed with the repeat.
    public var outsideCause: String?

    public init(_ value: Value, outsideCause: String?) {
        self.value = value
        self.outsideCause = outsideCause
    }
}

/// Runs a live run, and runs it again (up to `attempts` runs in all) only while the last run went wrong for a cause
/// outside the product that explains what it got wrong (`LiveRun.outsideCause`); a run whose checks pass, or which
/// our own lateness explains, is kept. Every repeat prints a `live retry:` line — the test, the place, the run and its
/// cause with the figures — which .ci/test counts per run and lists (more than its ceiling fails CI).
/// - Returns: the kept run's value; its checks are the caller's.
public func repeatedOnlyForOutsideCauses<Value>(
    attempts: Int = 3, sourceLocation: SourceLocation = #_sourceLocation, _ run: () throws -> LiveRun<Value>
) rethrows -> Value {
    var last = try run()
    var attempt = 1
    while let cause = last.outsideCause, attempt < attempts {
        printRetry(attempt: attempt, of: attempts, cause: cause, at: sourceLocation)
        last = try run()
        attempt += 1
    }
    return last.value
}

/// As `repeatedOnlyForOutsideCauses`, for a run that awaits.
public func repeatedOnlyForOutsideCauses<Value>(
    attempts: Int = 3, sourceLocation: SourceLocation = #_sourceLocation, _ run: () async throws -> LiveRun<Value>
) async rethrows -> Value {
    var last = try await run()
    var attempt = 1
    while let cause = last.outsideCause, attempt < attempts {
        printRetry(attempt: attempt, of: attempts, cause: cause, at: sourceLocation)
        last = try await run()
        attempt += 1
    }
    return last.value
}

/// One `live retry:` line: `live retry: "<test's display name>" at <file>:<line>: run N of at most M: <cause>`
/// (.ci/report counts a test's repeats by the name its result line shows).
private func printRetry(attempt: Int, of attempts: Int, cause: String, at sourceLocation: SourceLocation) {
    let test = Test.current.map { "\"\($0.displayName ?? $0.name)\"" } ?? "(no test)"
    print(
        "live retry: \(test) at \(sourceLocation.fileName):\(sourceLocation.line): run \(attempt) of at most "
            + "\(attempts): \(cause)")
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
