import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// The live checks that matter most, against what most desktops run now: PipeWire's PulseAudio server
/// (`pipewire-pulse`, with WirePlumber), private and headless (`PipeWireServer`), each checked as the PulseAudio tests
/// check theirs. Each run is played once, never repeated: PULSEAUDIO.md measured no underrun through pipewire-pulse on
/// these machines; and the one gap seen here (256 frames of silence at `--latency 5`, beside another suite's JACK
/// tests) came with no underrun reported, so a repeat on reported underruns would not have caught it.
@Suite("Live playback through PipeWire's PulseAudio server (pipewire-pulse)", .serialized)
struct PipeWireLiveTests {
    @Test(
        "10 s at 120 BPM: every inter-onset interval is exactly 24000 frames, no click missing, and the recording equals the offline render"
    )
    func steadyClickIsFrameExact() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["--bpm", "120", "--duration", "10", "--quiet"], server: server, scratch: scratch, attempts: 1)
        let found = onsets(recorded)
        #expect(found.count == 20)
        #expect(zip(found.dropFirst(), found).map { $0 - $1 } == [Int](repeating: 24000, count: 19))
        expectRecording(recorded, fromItsFirstOnsetEquals: offline)
    }

    @Test(
        "The shipped pattern four-three (a 4-against-3 cowbell layer over 3/4) played live is bit-identical to its render"
    )
    func shippedPatternLive() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["play", "four-three", "--bars", "3", "--quiet"], server: server, scratch: scratch, attempts: 1)
        // Both layers sound, and nothing else: the 3/4 beats 32000 frames apart (90 BPM) and the cowbell's four to a
        // bar of 96000 frames, 24000 apart.
        let beats = Set(stride(from: 0, to: 288_000, by: 32000))
        let cowbell = Set(stride(from: 0, to: 288_000, by: 24000))
        #expect(onsets(offline) == beats.union(cowbell).sorted())
        expectRecording(recorded, fromItsFirstOnsetEquals: offline)
    }

    @Test(
        "pipewire-pulse grants 1.5× the latency asked for, 16 ms at least, and the clicks stay exact at the floor",
        arguments: [
            ([String](), "target 30.0 ms, minimum request 10.0 ms"),
            (["--latency", "5"], "target 16.0 ms, minimum request 5.3 ms"),
        ])
    func grantedLatency(latency: [String], granted: String) throws {
        let server = try PipeWireServer()
        let recording = try server.startRecording()
        let result = try CommandRunner.run(
            ["--bpm", "240", "--duration", "3", "--quiet", "--verbose"] + latency, environment: server.clientEnvironment
        )
        let recorded = try recording.finish()
        #expect(result.status == 0)
        #expect(result.standardError.contains("metronome: stream buffer: \(granted)\n"))
        #expect(result.standardError.contains("metronome: late events: 0\n"))
        #expect(reportedUnderruns(result.standardError) == 0)
        let found = onsets(recorded)
        #expect(found.count == 12)
        #expect(zip(found.dropFirst(), found).map { $0 - $1 } == [Int](repeating: 12000, count: 11))
    }

    @Test(
        "serve --wait steered with oscsend: /metronome/play, then /metronome/tempo f 90 lands on a beat of the 120 BPM grid, every interval exact, /metronome/quit exits 0"
    )
    func serveSteeredOverOSC() throws {
        let server = try PipeWireServer()
        let recording = try server.startRecording()
        let (serve, port) = try startServe(["--wait", "--bpm", "120"], server: server)
        #expect(try oscsend(port, "/metronome/play").status == 0)
        usleep(1_300_000)
        #expect(try oscsend(port, "/metronome/tempo", "f", "90").status == 0)
        usleep(3_000_000)
        #expect(try oscsend(port, "/metronome/quit").status == 0)
        let quit = poll(atMost: 5) { serve.hasExited }
        if !quit { serve.send(SIGINT) }
        let result = serve.wait()
        let found = onsets(try recording.finish())
        #expect(quit)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("metronome: late events: 0\n"))
        #expect(reportedUnderruns(result.standardError) == 0)
        let steps = zip(found.dropFirst(), found).map { $0 - $1 }
        let change = try #require(steps.firstIndex { $0 != 24000 }, "intervals: \(steps)")
        // Sent 1.3 s after play: at least two beats of 120 before it, and the change on one of their grid's beats.
        #expect(change >= 2, "intervals: \(steps)")
        #expect((found[change] - found[0]) % 24000 == 0)
        // 3 s at 90 BPM: at least four beats 32000 frames apart, and nothing else.
        #expect(steps.count - change >= 4, "intervals: \(steps)")
        #expect(steps[change...].allSatisfy { $0 == 32000 }, "intervals: \(steps)")
    }

    @Test(
        "pipewire-pulse killed and started again while playing, PipeWire and the recording going on: one line each way, every interval a whole beat but the gap, and the first click after the return within two graph quanta (512 frames) of the old grid — not to the frame as with PulseAudio: an open defect"
    )
    func pulseServerRestartKeepsTheGrid() throws {
        let server = try PipeWireServer()
        let recording = try server.startRecording()
        let command = try CommandRunner.start(["--bpm", "120", "--quiet"], environment: server.clientEnvironment)
        #expect(try waitUntilPlaying(server))
        usleep(1_600_000)
        server.killPulse(SIGKILL)
        #expect(poll(atMost: 2) { command.errorOutput == lostLine(server) })
        // More than two beats without a server: those clicks are skipped.
        usleep(1_300_000)
        try server.restartPulse()
        let back = now()
        #expect(poll(atMost: 3) { command.errorOutput == lostLine(server) + backLine(server) })
        let returned = now() - back
        print("pipewire-pulse back → stream playing again: \(Int(returned * 1000)) ms")
        #expect(returned < 1)
        usleep(2_200_000)
        command.send(SIGINT)
        let result = command.wait()
        let samples = try recording.finish()
        #expect(result.status == 0)
        #expect(result.standardError == lostLine(server) + backLine(server))
        // Measured (17 runs): the first click after the return from 33 frames late to 321 early (beside a build),
        // never within 2; with the graph's quantum forced to 64 frames -50 to 19, to 1024 -646. pipewire-pulse answers
        // a timing request with the read index and delay of its last graph cycle and stamps the answer with the time
        // it is sent, so each report is late by up to a quantum (256 frames here), and the new stream's first 250 ms
        // of reports carry a different share of that than the lost stream's line (docs/live.md, PipeWire). The check
        // is held here to what the reconnect gives on PipeWire today, two quanta, not PulseAudio's 2 frames: the
        // defect is open (docs/live.md) and this bound only catches it growing.
        expectOnTheGridAcrossReturns(samples, returns: 1, clicks: 6, within: 512)
    }

    @Test(
        "All of PipeWire killed and started again while playing: one line each way, and each recording holds whole clicks on their grid"
    )
    func wholeServerRestart() throws {
        let server = try PipeWireServer()
        let scratch = try Scratch()
        let first = try server.startRecording()
        let command = try CommandRunner.start(["--bpm", "120", "--quiet"], environment: server.clientEnvironment)
        #expect(try waitUntilPlaying(server))
        usleep(1_100_000)
        server.kill(SIGKILL)
        #expect(poll(atMost: 2) { command.errorOutput == lostLine(server) })
        // The recorder ends with its server.
        first.process.wait()
        let before = try AudioFileReader.read(path: first.path).channels[0]
        usleep(1_300_000)
        try server.restart()
        let back = now()
        let second = try server.startRecording()
        #expect(poll(atMost: 3) { command.errorOutput == lostLine(server) + backLine(server) })
        let returned = now() - back
        print("PipeWire back → stream playing again: \(Int(returned * 1000)) ms")
        #expect(returned < 1)
        usleep(2_000_000)
        command.send(SIGINT)
        let result = command.wait()
        let after = try second.finish()
        #expect(result.status == 0)
        #expect(result.standardError == lostLine(server) + backLine(server))
        try expectWholeClicks(before: before, after: after, scratch: scratch)
    }
}

/// The line `metronome` writes when it loses `server`.
private func lostLine(_ server: PipeWireServer) -> String {
    "metronome: lost the connection to PulseAudio at \(server.address) (PULSE_SERVER); retrying for 30 s "
        + "(--reconnect-timeout)\n"
}

/// The line `metronome` writes when `server` is back.
private func backLine(_ server: PipeWireServer) -> String {
    "metronome: PulseAudio at \(server.address) (PULSE_SERVER) is back (sink 'metro'); playing on the same beat grid\n"
}

/// Checks that a recording, from its first onset on, holds the offline render, sample for sample.
private func expectRecording(
    _ recorded: [Float], fromItsFirstOnsetEquals offline: [Float], sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let start = onsets(recorded).first else {
        Issue.record("nothing was recorded", sourceLocation: sourceLocation)
        return
    }
    #expect(recorded.count >= start + offline.count, sourceLocation: sourceLocation)
    if recorded.count >= start + offline.count {
        #expect(Array(recorded[start..<(start + offline.count)]) == offline, sourceLocation: sourceLocation)
    }
}

/// Starts `metronome serve --osc 127.0.0.1:0 --quiet --verbose ARGUMENTS` into `server` and reads the port it chose
/// from its `listening for OSC` line (10 s at most).
private func startServe(_ arguments: [String], server: PipeWireServer) throws -> (ChildProcess, port: Int) {
    let serve = try CommandRunner.start(
        ["serve", "--osc", "127.0.0.1:0", "--quiet", "--verbose"] + arguments, environment: server.clientEnvironment)
    let prefix = "metronome: listening for OSC on udp 127.0.0.1:"
    var port: Int?
    poll(atMost: 10) {
        port = serve.errorOutput.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
            Int($0.dropFirst(prefix.count))
        }
        return port != nil || serve.hasExited
    }
    return (serve, try #require(port, "serve did not listen: \(serve.errorOutput)"))
}

/// Sends one OSC message with liblo's `oscsend` to 127.0.0.1:`port`.
private func oscsend(_ port: Int, _ message: String...) throws -> CommandResult {
    try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(port)] + message).wait()
}
