import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// `metronome serve --osc 127.0.0.1:0 --quiet --verbose …` playing into a private server, with the port it chose
/// (read from its `listening for OSC` line on standard error).
final class ServeProcess {
    let child: ChildProcess
    let port: Int

    /// Starts the service and waits (at most 10 s) for it to listen.
    /// - Parameters:
    ///   - arguments: after `serve`; `--osc 127.0.0.1:0 --quiet --verbose` are added unless `osc` is given.
    ///   - osc: the `--osc` value.
    init(_ arguments: [String], osc: String = "127.0.0.1:0", server: PulseServer) throws {
        child = try CommandRunner.start(
            ["serve", "--osc", osc, "--quiet", "--verbose"] + server.withTestLatency(arguments),
            environment: server.clientEnvironment)
        let prefix = "metronome: listening for OSC on udp "
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lines = child.errorOutput.split(separator: "\n")
            if let line = lines.first(where: { $0.hasPrefix(prefix) }), let colon = line.lastIndex(of: ":"),
                let port = Int(line[line.index(after: colon)...])
            {
                self.port = port
                return
            }
            if child.hasExited { throw ServeError.exited(child.wait()) }
            usleep(5_000)
        }
        throw ServeError.notListening(child.errorOutput)
    }

    enum ServeError: Error {
        case exited(CommandResult)
        case notListening(String)
    }
}

/// What one live run of `serve` gave: the recording from its first click on, the client's report and the
/// service's exit.
struct ServeRun<Report> {
    /// The left channel recorded from the first onset (the session's frame 0) on.
    var recording: [Float]
    var report: Report
    var result: CommandResult

    /// Onset frames of the recording (session frames).
    var onsetFrames: [Int] { onsets(recording) }
}

/// Records a private server's sink while `serve --wait` waits for `client` (given the port) to subscribe and start
/// it (the prelude's `start()`, so no beat is missed however slowly the client starts), drive it and make it quit.
/// Frames are counted from the first click. A run is repeated only for underruns whose reports show our write
/// callbacks in time and no event late (`PulseServer.VerboseReport.underrunsOutsideUs(lateEvents:)`): an underrun fails
/// `expectClean`, which every caller applies to the kept run, and a cause of ours fails it with its figures.
/// - Parameter lateEvents: the run's late events when the caller checks them before the quit (its client's state);
///   nil for the exit report's count.
func serveAndRecord<Report>(
    _ arguments: [String], server: PulseServer, lateEvents: (Report) -> Int? = { _ in nil },
    client: (Int) throws -> Report
) throws -> ServeRun<Report> {
    try repeatedOnlyForOutsideCauses {
        let recording = try server.startRecording()
        let serve = try ServeProcess(["--wait"] + arguments, server: server)
        let report = try client(serve.port)
        let result = serve.child.wait()
        var samples = try recording.finish()
        if let start = onsets(samples).first { samples.removeFirst(start) }
        let run = ServeRun(recording: samples, report: report, result: result)
        _ = reportedUnderruns(result.standardError)
        let verbose = PulseServer.VerboseReport(standardError: result.standardError)
        return LiveAttempt(run, outsideCause: verbose.outsideUs(lateEvents: lateEvents(report)))
    }
}

/// Checks a run's exit and its `--verbose` report: no late event, no underrun (with our callbacks' figures when
/// not).
func expectClean<Report>(_ run: ServeRun<Report>, sourceLocation: SourceLocation = #_sourceLocation) {
    let report = PulseServer.VerboseReport(standardError: run.result.standardError)
    #expect(run.result.status == 0, "\(run.result.standardError)", sourceLocation: sourceLocation)
    #expect(report.lateEvents == 0, "\(report.figures)", sourceLocation: sourceLocation)
    #expect(report.underruns == 0, "\(report.figures)", sourceLocation: sourceLocation)
    #expect(report.slowCallback == nil, sourceLocation: sourceLocation)
}

/// Compares the recording with an offline render over `frames` frames, bit for bit.
func expectRecording(_ recording: [Float], equals offline: [Float], frames: Int) {
    #expect(recording.count >= frames && offline.count >= frames)
    if recording.count >= frames, offline.count >= frames {
        #expect(Array(recording[0..<frames]) == Array(offline[0..<frames]))
    }
}

/// Inter-onset intervals.
func intervals(_ frames: [Int]) -> [Int] { zip(frames.dropFirst(), frames).map { $0 - $1 } }

/// The session `serve` runs with its default options (wood click, gain 1, piano notes panned by pitch), rendered
/// offline with `commands` and the notes `play` queues: what the recording of a run must equal.
func offlineServe(
    map: TempoMap, frames: Int, commands: [(TransportCommand, Quantization)] = [],
    notes: (NoteQueue) -> Void = { _ in }
) throws -> [Float] {
    let player = NotePlayer(
        tracks: [.init(bank: InstrumentSynthesizer.bank(.piano, sampleRate: .standard))], source: NoteBatches([]),
        sampleRate: .standard)
    let session = try Session(
        map: map, clicks: ClickSynthesizer.clickSet(.standard, sampleRate: .standard),
        configuration: try MixerConfiguration(), players: [player])
    for (command, quantization) in commands { session.send(command, at: quantization) }
    notes(player.queue)
    player.queue.commit()
    let sink = LeftChannelSink()
    try session.render(frameCount: SampleTime(frames), to: sink)
    return sink.samples
}

/// A sink that keeps the left channel.
final class LeftChannelSink: AudioSink {
    var samples: [Float] = []
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        for frame in 0..<frameCount { self.samples.append(samples[2 * frame]) }
    }
}

/// A pattern file's map at 48 kHz, as `serve` loads it.
func patternMap(_ path: String) throws -> TempoMap {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let score = try PatternLanguage.detect(path: path, text: text).score(text, file: path, tempo: .none)
    return try score.map(sampleRate: .standard, startAt: nil, subdivision: nil, countInBars: nil)
}
