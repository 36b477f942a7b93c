import Testing

/// What one live run gave, for `repeatedOnlyForOutsideCauses`: the run's value, and why it may be run again.
public struct LiveAttempt<Value> {
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
/// outside the product that explains what it got wrong (`LiveAttempt.outsideCause`); a run whose checks pass, or which
/// our own lateness explains, is kept. Every repeat prints a `live retry:` line — the test, the place, the run and its
/// cause with the figures — which .ci/test counts per run and lists (more than its ceiling fails CI).
/// - Returns: the kept run's value; its checks are the caller's.
public func repeatedOnlyForOutsideCauses<Value>(
    attempts: Int = 3, sourceLocation: SourceLocation = #_sourceLocation, _ run: () throws -> LiveAttempt<Value>
) rethrows -> Value {
    var last = try run()
    var attempt = 1
    while let cause = last.outsideCause, attempt < attempts {
        beforeRepeat(attempt: attempt, of: attempts, cause: cause, at: sourceLocation)
        last = try run()
        attempt += 1
    }
    return last.value
}

/// As `repeatedOnlyForOutsideCauses`, for a run that awaits.
public func repeatedOnlyForOutsideCauses<Value>(
    attempts: Int = 3, sourceLocation: SourceLocation = #_sourceLocation, _ run: () async throws -> LiveAttempt<Value>
) async rethrows -> Value {
    var last = try await run()
    var attempt = 1
    while let cause = last.outsideCause, attempt < attempts {
        beforeRepeat(attempt: attempt, of: attempts, cause: cause, at: sourceLocation)
        last = try await run()
        attempt += 1
    }
    return last.value
}

/// Prints one `live retry:` line: `live retry: "<test's display name>" at <file>:<line>: run N of at most M: <cause>`
/// (.ci/report counts a test's repeats by the name its result line shows), then waits for a second in which the host
/// took no CPU time (`HostSteal.waitForQuiet`), so that the repeat does not run inside the same stall of the host.
private func beforeRepeat(attempt: Int, of attempts: Int, cause: String, at sourceLocation: SourceLocation) {
    let test = Test.current.map { "\"\($0.displayName ?? $0.name)\"" } ?? "(no test)"
    print(
        "live retry: \(test) at \(sourceLocation.fileName):\(sourceLocation.line): run \(attempt) of at most "
            + "\(attempts): \(cause)")
    let quiet = HostSteal.waitForQuiet()
    if quiet.stolenMilliseconds > 0 {
        print(
            "waited \(quiet.seconds) s before the repeat for a second without steal (the host took "
                + "\(quiet.stolenMilliseconds) ms)")
    }
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
