import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Plays `metronome ARGUMENTS` live into `server`'s sink (with `--verbose`; the first run without an underrun, of at
/// most `attempts`), expects a clean run — exit 0, no late event, no underrun — and renders the same arguments with
/// `--output`.
/// - Returns: the recording's left channel and the render's.
func playLiveAndRender(
    _ arguments: [String], server: some PulseProtocolServer, scratch: Scratch, attempts: Int = 3
) throws -> (recorded: [Float], offline: [Float]) {
    let ((result, recorded), _) = try firstRunWithoutUnderruns(attempts: attempts) {
        let recording = try server.startRecording()
        let result = try CommandRunner.run(arguments + ["--verbose"], environment: server.clientEnvironment)
        return ((result, try recording.finish()), reportedUnderruns(result.standardError))
    }
    #expect(result.status == 0)
    #expect(result.standardError.contains("metronome: late events: 0\n"))
    #expect(result.standardError.contains("metronome: underruns reported by the server: 0\n"))
    let rendered = scratch.file("offline-\(arguments.count).wav")
    #expect(try CommandRunner.run(arguments + ["--output", rendered]).status == 0)
    return (recorded, try AudioFileReader.read(path: rendered).channels[0])
}
