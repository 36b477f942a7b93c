import Foundation
import MetronomeKit
import MetronomeTestSupport
import Testing

/// `metronome serve` playing into a private server's null sink, recorded, driven by clients no one here wrote
/// (liblo's `oscsend` and `oscdump`, python-osc). Frame 0 of a recording is the service's first click.
@Suite(
    "metronome serve driven over OSC, played live through a real PulseAudio server", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeLiveTests {
    /// Checks a run's exit and its `--verbose` report: no late event, no underrun.
    private func expectClean<Report>(_ run: ServeRun<Report>) {
        #expect(run.result.status == 0, "\(run.result.standardError)")
        #expect(run.result.standardError.contains("metronome: late events: 0\n"))
        #expect(run.result.standardError.contains("metronome: underruns reported by the server: 0\n"))
    }

    /// Compares the recording with an offline render over `frames` frames, bit for bit.
    private func expectRecording(_ recording: [Float], equals offline: [Float], frames: Int) {
        #expect(recording.count >= frames && offline.count >= frames)
        if recording.count >= frames, offline.count >= frames {
            #expect(Array(recording[0..<frames]) == Array(offline[0..<frames]))
        }
    }

    @Test(
        "oscsend /metronome/tempo f 90 at 120 BPM: the change lands on the next beat with no phase jump, and the recording equals the offline render with the change at that frame"
    )
    func tempoFromOscsend() throws {
        let server = try PulseServer()
        let run = try serveAndRecord(["--bpm", "120"], server: server) { port in
            try PythonOSCClient.run(
                """
                send("/metronome/subscribe")
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
        #expect(((first90.bar - 1) * 4 + first90.beat - 1) * 24000 == switchFrame)
        #expect(beats.prefix { $0.tempo == 120 }.count + beats.drop { $0.tempo == 120 }.count == beats.count)
        #expect(beats.drop { $0.tempo == 120 }.allSatisfy { $0.tempo == 90 })

        let frames = try #require(found.last)
        let offline = try offlineServe(
            map: .steady(tempo: BPM(120)), frames: frames,
            commands: [(.setTempo(try BPM(90)), .frame(SampleTime(switchFrame)))])
        expectRecording(run.recording, equals: offline, frames: frames)
        print("serve tempo via oscsend: change at frame \(switchFrame), onsets \(found)")
    }
}
