import Foundation
import MetronomeEngine
import MetronomeFiles
import MetronomeLive
import MetronomeModel
import MetronomePulse
import MetronomeTestSupport
import Testing

/// Plays a map live into a private server's null sink (in this process, through the library) while recording the
/// monitor. `during` runs on this thread every 5 ms with the engine until it returns false or playback ends. A run is
/// repeated only for underruns whose reports show our write callbacks in time (`underrunsOutsideUs`): the caller
/// asserts the kept run's underruns and late events.
private func playAndRecord(
    _ map: TempoMap, endFrame: SampleTime?, server: PulseServer,
    during: (Session) -> Bool = { _ in true }
) throws -> (recording: [Float], engine: Session, output: PulseOutput) {
    try repeatedOnlyForOutsideCauses {
        let run = try playAndRecordOnce(map, endFrame: endFrame, server: server, during: during)
        _ = underruns(of: run.output)
        return LiveAttempt(run, outsideCause: underrunsOutsideUs(run.output, lateEvents: run.engine.mixer.lateEventCount))
    }
}

private func playAndRecordOnce(
    _ map: TempoMap, endFrame: SampleTime?, server: PulseServer, during: (Session) -> Bool
) throws -> (recording: [Float], engine: Session, output: PulseOutput) {
    let recording = try server.startRecording()
    let engine = try Session(
        map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
        configuration: try MixerConfiguration(), endFrame: endFrame)
    engine.start(output: nil)
    let output = try PulseOutput(mixer: engine.mixer, server: server.address, latency: .milliseconds(20))
    engine.attach(output: output)
    var watching = true
    let deadline = Date().addingTimeInterval(60)
    while !engine.isFinished, Date() < deadline {
        if watching { watching = during(engine) }
        usleep(5_000)
    }
    engine.stop()
    output.drain()
    output.close()
    return (try recording.finish(), engine, output)
}

@Suite("Live playback through a real PulseAudio server", .serialized)
struct LivePlaybackTests {
    // 3 s at 240 BPM, not 10 s at 120: a dozen clicks prove every interval exact and the recording equal to the
    // render as well as twenty did, in 7 s less.
    @Test(
        "3 s at 240 BPM: every inter-onset interval is exactly 12000 frames, no click missing, and the recording equals the offline render"
    )
    func steadyClickIsFrameExact() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["--bpm", "240", "--duration", "3", "--quiet"], server: server, scratch: scratch)
        let found = onsets(recorded)
        #expect(found.count == 12)
        #expect(intervals(recorded) == [Int](repeating: 12000, count: 11))
        #expect(onsets(offline) == Array(stride(from: 0, to: 144_000, by: 12000)))
        #expect(holds(recorded, offline))
    }

    @Test("A 100→160 BPM ramp over 2 bars lands on the closed form, frame for frame")
    func rampMatchesClosedForm() throws {
        let server = try PulseServer()
        let section = try TempoSection(bars: 2, tempo: BPM(100), endTempo: BPM(160))
        let map = try TempoMap(sections: [section])
        let (recorded, engine, output) = try playAndRecord(map, endFrame: map.endFrame, server: server)
        let figures = ourFigures(output, lateEvents: engine.mixer.lateEventCount)
        #expect(engine.mixer.lateEventCount == 0, "\(figures)")
        #expect(output.underrunCount == 0, "\(figures)")
        // About 4 s of play (it was 4 bars, 8 s, for the same check): a timer that never slept would have woken some
        // 400 times.
        #expect(engine.tickCount < 150)
        // t(x) = 240·N/(d·ΔT)·ln(T(x)/T₀), N = 8 beats, d = 4, ΔT = 60, T(x) = 100 + 60·x/8.
        let expected = (0..<8).map { x -> Int in
            let seconds = 240.0 * 8 / (4 * 60) * log((100 + 60 * Double(x) / 8) / 100)
            return Int((seconds * 48000).rounded())
        }
        let found = onsets(recorded)
        let start = try #require(found.first)
        #expect(found.map { $0 - start } == expected)
    }

    @Test("A tempo change while playing takes effect at the next unscheduled beat with no phase jump")
    func tempoChangeWhilePlaying() throws {
        let server = try PulseServer()
        let map = try TempoMap.steady(tempo: BPM(120))
        var callPosition: SampleTime = 0
        let end: SampleTime = 5 * 48000
        let (recorded, engine, output) = try playAndRecord(map, endFrame: end, server: server) { engine in
            guard engine.mixer.framePosition >= 78_000 else { return true }
            callPosition = engine.mixer.framePosition
            engine.send(.setTempo(try! BPM(150)))
            return false
        }
        let changes = engine.appliedCommands.filter { $0.command == .setTempo(try! BPM(150)) }
        #expect(changes.count == 1)
        let switchFrame = try #require(changes.first).frame
        // The switch is a beat of the old grid, the first one not yet scheduled when the call was made.
        #expect(switchFrame % 24000 == 0)
        #expect(switchFrame >= callPosition)
        #expect(switchFrame <= callPosition + engine.lookahead + 24000)
        var expected = Array(stride(from: 0, through: Int(switchFrame), by: 24000))
        var next = Int(switchFrame) + 19200
        while next < end {
            expected.append(next)
            next += 19200
        }
        let found = onsets(recorded)
        let start = try #require(found.first)
        #expect(found.map { $0 - start } == expected)
        let figures = ourFigures(output, lateEvents: engine.mixer.lateEventCount)
        #expect(engine.mixer.lateEventCount == 0, "\(figures)")
        #expect(output.underrunCount == 0, "\(figures)")
    }

    @Test("A pattern file with swing, a polyrhythm layer and a gap plays live exactly as it renders")
    func patternFileLive() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let pattern = scratch.file("poly.metro")
        try "# live check\ntempo 120\nmeter 2/4\n4 bars layer 3 clave subdivide 2 swing 8 50% gap play 1 mute 1\n"
            .write(toFile: pattern, atomically: true, encoding: .utf8)
        let (recorded, offline) = try playLiveAndRender(["play", pattern, "--quiet"], server: server, scratch: scratch)
        #expect(onsets(offline).first == 0)
        #expect(holds(recorded, offline))
        // Bars 1 and 3 sound, bars 2 and 4 are the gap: nothing between 1 s and 2 s, nor after 3 s.
        let found = onsets(offline)
        #expect(!found.contains { (48000..<96000).contains($0) || $0 >= 144_000 })
        #expect(found.contains(96000))
    }

    @Test("arp with the click played live is bit-identical to its render")
    func arpeggioLive() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let arguments = [
            "arp", "C Am", "--rate", "1/8", "--gate", "0.5", "--instrument", "organ", "--click", "--bars", "2",
            "--quiet",
        ]
        let (recorded, offline) = try playLiveAndRender(arguments, server: server, scratch: scratch)
        #expect(holds(recorded, offline))
    }
}
