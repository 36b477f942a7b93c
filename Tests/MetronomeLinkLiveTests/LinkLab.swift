import Foundation
import MetronomeTestSupport
import Testing

/// Where a Link test runs: a network namespace of its own, checked to hold only loopback before any peer starts (or,
/// for two machines, two namespaces joined by a veth pair, which `NetworkNamespace.pair()` checks), and a private
/// PulseAudio server, whose unix socket every namespace reaches. The namespaces are deleted when the lab goes.
struct LinkLab {
    let namespace: NetworkNamespace
    /// The second machine's namespace in a veth test; otherwise `namespace` itself.
    let other: NetworkNamespace
    let server: PulseServer

    /// The OSC port of `serve` in these tests (inside the namespace, on its loopback).
    static let oscPort = "7770"

    /// The test peers' folder.
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers").path

    /// One namespace with only loopback.
    init() throws {
        namespace = try NetworkNamespace()
        #expect(try namespace.interfaces() == ["lo"])
        other = namespace
        server = try PulseServer()
    }

    /// Two namespaces over a veth pair.
    init(pair: (NetworkNamespace, NetworkNamespace)) throws {
        (namespace, other) = pair
        server = try PulseServer()
    }

    /// Starts our binary in the namespace (or in the other one), playing into the lab's server.
    func ours(_ arguments: [String], onOther: Bool = false) throws -> ChildProcess {
        try (onOther ? other : namespace).start(
            CommandRunner.executable, server.withTestLatency(arguments), environment: server.clientEnvironment)
    }

    /// `serve --link --osc 127.0.0.1:7770 --quiet` followed by `arguments`.
    func serve(_ arguments: [String] = [], link: Bool = true) throws -> ChildProcess {
        try ours(["serve"] + (link ? ["--link"] : []) + ["--osc", "127.0.0.1:\(Self.oscPort)", "--quiet"] + arguments)
    }

    /// Starts a test peer, `Peers/NAME.py ARGUMENTS…`, in the namespace.
    func peer(_ name: String, _ arguments: [String]) throws -> ChildProcess {
        try namespace.start(
            "/usr/bin/env", ["python3", "\(Self.peers)/\(name).py"] + arguments, environment: server.clientEnvironment)
    }

    /// Runs `osc_state.py`'s steps against `serve` to their end.
    func osc(_ steps: [String]) throws -> CommandResult {
        try peer("osc_state", [Self.oscPort] + steps).wait()
    }

    /// What a recorded run leaves: each process's result, ours first, and the recording's left channel.
    struct Run {
        var results: [CommandResult]
        var samples: [Float]
    }

    /// Runs `body` in a fresh lab while the null sink is recorded. `body` returns the results of its processes, the
    /// first `ours` of them our binaries run with `--verbose` (which report the server's underruns). The run kept must
    /// have no underrun; a run with one is repeated (`repeatedOnlyForOutsideCauses`, in a fresh lab) only when every
    /// one of ours that had one reports our write callbacks in time and no event late (`underrunsOutsideUs`): the
    /// server did not ask in time, docs/benchmarks.md. Our own slowness fails the test with its figures.
    static func recorded(
        ours: Int = 1, sourceLocation: SourceLocation = #_sourceLocation,
        in makeLab: () throws -> LinkLab = { try LinkLab() },
        _ body: (LinkLab) throws -> [CommandResult]
    ) throws -> Run {
        let run = try repeatedOnlyForOutsideCauses(sourceLocation: sourceLocation) {
            let lab = try makeLab()
            let recording = try lab.server.startRecording()
            let results = try body(lab)
            let samples = try recording.finish()
            let reports = results.prefix(ours).map { PulseServer.VerboseReport(standardError: $0.standardError) }
            for result in results.prefix(ours) { _ = reportedUnderruns(result.standardError) }
            return LiveAttempt(Run(results: results, samples: samples), outsideCause: underrunsOutsideUs(reports))
        }
        for result in run.results.prefix(ours) {
            let report = PulseServer.VerboseReport(standardError: result.standardError)
            // A run of ours without the server's count (-1: it ended early) is no run without underruns.
            #expect(report.underruns == 0, "\(report.figures)", sourceLocation: sourceLocation)
            #expect(report.slowCallback == nil, sourceLocation: sourceLocation)
        }
        return run
    }

    /// The cause outside the product that explains the underruns or slow write callbacks of a run of several of
    /// ours, for a repeat: some had them, and each that had them explains them (`PulseServer.VerboseReport.outsideUs`:
    /// underruns with our callbacks in time, or a callback the machine stopped inside); nil otherwise.
    static func underrunsOutsideUs(_ reports: [PulseServer.VerboseReport]) -> String? {
        let troubled = reports.filter { $0.underruns != 0 || $0.slowCallback != nil }
        let machine = MachineStalls.read()
        let causes = troubled.compactMap { $0.outsideUs(machine: machine) }
        guard !troubled.isEmpty, causes.count == troubled.count else { return nil }
        return causes.joined(separator: "; ")
    }
}
