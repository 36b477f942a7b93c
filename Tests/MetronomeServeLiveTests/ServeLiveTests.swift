import Foundation
import MetronomeEngine
import MetronomeModel
import MetronomeTestSupport
import Testing

/// `metronome serve` playing into a private server's null sink, recorded, driven by clients no one here wrote
/// (liblo's `oscsend` and `oscdump`, python-osc). Frame 0 of a recording is the service's first click.
@Suite(
    "metronome serve driven over OSC, played live through a real PulseAudio server", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeLiveTests {
    @Test(
        "oscsend /metronome/tempo f 90 at 120 BPM: the change lands on the next beat with no phase jump, and the recording equals the offline render with the change at that frame"
    )
    func tempoFromOscsend() throws {
        let server = try PulseServer()
        let run = try serveAndRecord(["--bpm", "120"], server: server) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 3))
                subprocess.run(["oscsend", "127.0.0.1", str(PORT), "/metronome/tempo", "f", "90"], check=True)
                until_beat(lambda bar, beat, tempo: (bar, beat) == (3, 1))
                finish()
                """, port: port, as: BeatsReport.self)
        }
        expectClean(run)
        let found = run.onsetFrames
        let steps = intervals(found)
        let change = try #require(steps.firstIndex { $0 != 24000 })
        // Sent once beat 3 (frame 48000) was heard: the first beat not yet scheduled is later.
        #expect(found[change] > 48000)
        #expect(steps[..<change].allSatisfy { $0 == 24000 })
        #expect(steps[change...].dropLast().allSatisfy { $0 == 32000 })
        #expect(steps.count - change >= 4)
        let switchFrame = found[change]
        // The subscription's first 90 BPM beat is the beat the recording switches at.
        let beats = run.report.beats
        let first90 = try #require(beats.first { $0.tempo == 90 })
        let first90Frame: Int = ((first90.bar - 1) * 4 + first90.beat - 1) * 24000
        #expect(first90Frame == switchFrame)
        #expect(beats.prefix { $0.tempo == 120 }.count + beats.drop { $0.tempo == 120 }.count == beats.count)
        #expect(beats.drop { $0.tempo == 120 }.allSatisfy { $0.tempo == 90 })

        let frames = try #require(found.last)
        let offline = try offlineServe(
            map: .steady(tempo: BPM(120)), frames: frames,
            commands: [(.setTempo(try BPM(90)), .frame(SampleTime(switchFrame)))])
        expectRecording(run.recording, equals: offline, frames: frames)
    }

    @Test(
        "A song pattern keeps its 7/8 bridge after a tempo change sent with python-osc: seven eighths a bar at the new tempo, as rendered offline"
    )
    func songKeepsMeterAfterTempoChange() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let song = scratch.file("song.metro")
        try "tempo 120\nmeter 4/4\nverse: 2 bars\nbridge: 2 bars meter 7/8\noutro: 2 bars meter 4/4\n"
            .write(toFile: song, atomically: true, encoding: .utf8)
        let run = try serveAndRecord([song], server: server) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 2))
                send("/metronome/tempo", 150.0)
                until_beat(lambda bar, beat, tempo: (bar, beat) == (5, 2))
                finish()
                """, port: port, as: BeatsReport.self)
        }
        expectClean(run)
        let found = run.onsetFrames
        let change = try #require(intervals(found).firstIndex { $0 != 24000 })
        let switchFrame = found[change]
        #expect(switchFrame > 24000 && switchFrame % 24000 == 0)
        // 150 BPM: quarters 19200 frames apart, the bridge's eighths 9600.
        let bridge = switchFrame + (8 - switchFrame / 24000) * 19200
        var expected = Array(stride(from: 0, to: switchFrame, by: 24000))
        expected += Array(stride(from: switchFrame, to: bridge, by: 19200))
        expected += Array(stride(from: bridge, to: bridge + 14 * 9600, by: 9600))
        expected += [bridge + 14 * 9600, bridge + 14 * 9600 + 19200]
        #expect(Array(found.prefix(expected.count)) == expected)
        // Bars 3 and 4 count seven beats, at the new tempo.
        let bridgeBeats = run.report.beats.filter { $0.bar == 3 || $0.bar == 4 }
        #expect(bridgeBeats.map(\.beat) == Array(1...7) + Array(1...7))
        #expect(bridgeBeats.allSatisfy { $0.tempo == 150 })
        let frames = try #require(found.last)
        let offline = try offlineServe(
            map: patternMap(song), frames: frames,
            commands: [(.setTempo(try BPM(150)), .frame(SampleTime(switchFrame)))])
        expectRecording(run.recording, equals: offline, frames: frames)
    }

    @Test(
        "pause and continue resume on the same beat: the subscription's bar and beat go on where they stopped, and the recording equals the offline render with the pause and the continue at their frames"
    )
    func pauseAndContinue() throws {
        struct Report: Decodable {
            var beats: [HeardBeat]
            var paused: [String: StateValue]
        }
        let server = try PulseServer()
        let run = try serveAndRecord(["--bpm", "120"], server: server) { port in
            try PythonOSCClient.run(
                """
                import time
                start()
                b = until_beat(lambda bar, beat, tempo: (bar, beat) == (2, 2))
                interval = int(b["tag"]) - int(beats[-2]["tag"])
                send("/metronome/pause")
                paused = query()
                while paused["state"] != "paused":
                    time.sleep(0.02)
                    paused = query()
                # Continue a quarter of a beat after the paused beat would have sounded.
                send_at(int(b["tag"]) + interval + interval // 4, "/metronome/continue")
                until_beat(lambda bar, beat, tempo: (bar, beat) == (3, 4))
                finish(paused=paused)
                """, port: port, as: Report.self)
        }
        expectClean(run)
        let beats = run.report.beats
        let numbers = beats.map { ($0.bar - 1) * 4 + $0.beat - 1 }
        #expect(numbers == Array(numbers[0]..<(numbers[0] + numbers.count)))
        let found = run.onsetFrames
        let steps = intervals(found)
        let gap = try #require(steps.firstIndex { $0 != 24000 })
        #expect(steps.enumerated().allSatisfy { $0.offset == gap || $0.element == 24000 })
        let pauseFrame = found[gap] + 24000
        let resumeFrame = found[gap + 1]
        #expect(pauseFrame > 120_000)
        // The first click after the gap is the beat the pause stopped before.
        let resumedBeat = pauseFrame / 24000
        #expect(numbers.contains(resumedBeat - 1) && numbers.contains(resumedBeat))
        #expect(steps[gap] > 24000)
        // While paused the state names the beat that comes back.
        #expect(run.report.paused["playing"]?.number == 0)
        #expect(run.report.paused["bar"]?.number == Double(resumedBeat / 4 + 1))
        #expect(run.report.paused["beat"]?.number == Double(resumedBeat % 4 + 1))
        let frames = try #require(found.last)
        let offline = try offlineServe(
            map: .steady(tempo: BPM(120)), frames: frames,
            commands: [
                (.pause, .frame(SampleTime(pauseFrame))), (.resume, .frame(SampleTime(resumeFrame))),
            ])
        expectRecording(run.recording, equals: offline, frames: frames)
    }

    @Test(
        "/metronome/pattern waltz loads at the next bar: its first click is on the old grid's next downbeat, as rendered offline"
    )
    func patternLoadsAtNextBar() throws {
        let server = try PulseServer()
        let run = try serveAndRecord(["--bpm", "120"], server: server) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (1, 2))
                send("/metronome/pattern", "waltz")
                until_beat(lambda bar, beat, tempo: (bar, beat, tempo) == (2, 2, 90))
                finish()
                """, port: port, as: BeatsReport.self)
        }
        expectClean(run)
        let found = run.onsetFrames
        // Sent once beat 2 was heard: bar 2 of the old grid (frame 96000) is the next downbeat not yet scheduled.
        let expected = [0, 24000, 48000, 72000] + Array(stride(from: 96000, through: 96000 + 4 * 32000, by: 32000))
        #expect(Array(found.prefix(expected.count)) == expected)
        let heard = run.report.beats.map { "\($0.bar).\($0.beat)@\(Int($0.tempo))" }
        let load = try #require(heard.firstIndex(of: "1.1@90"))
        #expect(heard[(load - 2)...] == ["1.3@120", "1.4@120", "1.1@90", "1.2@90", "1.3@90", "2.1@90", "2.2@90"])
        let frames = try #require(found.last)
        let waltz = try patternMap(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../Patterns/waltz.metro"
            ).standardized.path)
        let offline = try offlineServe(
            map: .steady(tempo: BPM(120)), frames: frames, commands: [(.load(waltz), .frame(96000))])
        expectRecording(run.recording, equals: offline, frames: frames)
    }

    @Test(
        "--osc takes a port alone, on loopback, as --http does: serve --osc 0 listens on 127.0.0.1 and quits over OSC")
    func oscPortAlone() throws {
        let server = try PulseServer()
        let serve = try ServeProcess(["--bpm", "120"], osc: "0", server: server)
        #expect(
            serve.child.errorOutput.contains("metronome: listening for OSC on udp 127.0.0.1:\(serve.port)\n"),
            "\(serve.child.errorOutput)")
        let quit = try ChildProcess("/usr/bin/oscsend", ["127.0.0.1", String(serve.port), "/metronome/quit"]).wait()
        #expect(quit.status == 0)
        #expect(serve.child.wait().status == 0)
    }
}
