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
            CommandRunner.executable, arguments, environment: server.clientEnvironment)
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
    /// first `ours` of them our binaries run with `--verbose` (which report the server's underruns). A run in which
    /// the server reported an underrun (its measured cause is the server's, docs/benchmarks.md) is repeated, never
    /// silently (`firstRunWithoutUnderruns`), in a fresh lab; the run kept must have none.
    static func recorded(
        ours: Int = 1, sourceLocation: SourceLocation = #_sourceLocation, in makeLab: () throws -> LinkLab = { try LinkLab() },
        _ body: (LinkLab) throws -> [CommandResult]
    ) throws -> Run {
        let (run, underruns) = try firstRunWithoutUnderruns(sourceLocation: sourceLocation) {
            () throws -> (value: Run, underruns: Int) in
            let lab = try makeLab()
            let recording = try lab.server.startRecording()
            let results = try body(lab)
            let samples = try recording.finish()
            // A run of ours without the server's count (-1: it ended early) is no run without underruns.
            let counts = results.prefix(ours).map { reportedUnderruns($0.standardError) }
            let underruns = counts.contains(-1) ? -1 : counts.reduce(0, +)
            return (Run(results: results, samples: samples), underruns)
        }
        #expect(underruns == 0, sourceLocation: sourceLocation)
        return run
    }
}
