import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Plays `metronome ARGUMENTS` live into `server`'s sink (with `--verbose`; the first run without an underrun or, on
/// PipeWire, a graph cycle its profiler saw go wrong, of at most `attempts`), expects a clean run — exit 0, no late
/// event, no underrun — and renders the same arguments with `--output`.
/// - Returns: the recording's left channel and the render's.
func playLiveAndRender(
    _ arguments: [String], server: some PulseProtocolServer, scratch: Scratch, attempts: Int = 3,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (recorded: [Float], offline: [Float]) {
    let (result, recorded) = try playLiveRecorded(
        arguments, server: server, attempts: attempts, sourceLocation: sourceLocation)
    #expect(result.status == 0)
    #expect(result.standardError.contains("metronome: late events: 0\n"))
    #expect(result.standardError.contains("metronome: underruns reported by the server: 0\n"))
    let rendered = scratch.file("offline-\(arguments.count).wav")
    #expect(try CommandRunner.run(arguments + ["--output", rendered]).status == 0)
    return (recorded, try AudioFileReader.read(path: rendered).channels[0])
}

/// Plays `metronome ARGUMENTS --verbose` live into `server`'s sink while recording it: the first run without a fault
/// outside the product (`faultCount`), of at most `attempts`, each repeat printed with the caller's place.
/// - Returns: the run's result and the recording's left channel.
func playLiveRecorded(
    _ arguments: [String], server: some PulseProtocolServer, attempts: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (result: CommandResult, recorded: [Float]) {
    try firstRunWithoutUnderruns(attempts: attempts, cause: serverFaults, sourceLocation: sourceLocation) {
        let recording = try server.startRecording()
        let result = try CommandRunner.run(arguments + ["--verbose"], environment: server.clientEnvironment)
        let recorded = try recording.finish()
        return ((result, recorded), try faultCount(result, recording))
    }.value
}

/// What a repeated live run had, for its `live retry:` line.
let serverFaults = "server underrun(s), or PipeWire graph cycles its profiler saw late"

/// The faults outside the product that a live run had: the underruns the server reported (`--verbose`) and, on
/// PipeWire, the graph cycles its profiler saw go wrong (`Recording.troubledGraphCycles`), each printed.
func faultCount(_ result: CommandResult, _ recording: Recording) throws -> Int {
    let troubled = try recording.troubledGraphCycles()
    if troubled > 0 { print("live PipeWire cycles late or unfinished (pw-profiler): \(troubled)") }
    return max(0, reportedUnderruns(result.standardError)) + troubled
}
