import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Notes played live into a private server's null sink, recorded from its monitor in stereo, against the `--output`
/// render of the same command: both channels, every sample.
///
/// A render's last 5 ms fade linearly to silence (`Session.render`'s `fadeOutFrames`); playback has no end to fade
/// towards and lets notes ring on. So the two are identical, bit for bit, except where a note still sounds in those
/// last 240 frames: there the render is exactly the live sample times the fade's gain, (n − 1 − i) / 240 in Float.
@Suite("Live notes against their render", .serialized)
struct LiveNotesTests {
    /// Plays `arguments` live (repeated only for underruns whose reports show our write callbacks in time: see
    /// `outsideCause`) and renders them; returns both, the recording cut to the render's length from the first
    /// sounding frame.
    private func playAndRender(_ arguments: [String]) throws -> (live: [[Float]], offline: [[Float]]) {
        let server = try PulseServer()
        let scratch = try Scratch()
        let (result, recorded) = try repeatedOnlyForOutsideCauses {
            let recording = try server.startRecording()
            let result = try CommandRunner.run(
                server.withTestLatency(arguments) + ["--verbose"], environment: server.clientEnvironment)
            let recorded = try recording.finishStereo()
            // No PipeWire here: only an underrun can explain a failure, whatever the recording holds.
            let cause = try outsideCause(result, recording, passes: true, found: [], expected: [])
            return LiveAttempt((result, recorded), outsideCause: cause)
        }
        expectClean(result)
        let rendered = scratch.file("offline.wav")
        let render = try CommandRunner.run(arguments + ["--output", rendered])
        #expect(render.status == 0)
        let offline = try AudioFileReader.read(path: rendered).channels
        #expect(offline.count == 2)
        // The first frame that sounds in both places the recording: a piano note's first frame is 0 in both.
        let sounding = { (audio: [[Float]]) in audio[0].indices.first { audio[0][$0] != 0 || audio[1][$0] != 0 } }
        let start = try #require(sounding(recorded)) - (try #require(sounding(offline)))
        let length = offline[0].count
        #expect(recorded[0].count >= start + length)
        guard recorded[0].count >= start + length else { return ([], offline) }
        return (recorded.map { Array($0[start..<(start + length)]) }, offline)
    }

    @Test("chord Cmaj7 held 1 s plays live bit for bit as it renders, both channels")
    func chordLive() throws {
        let (live, offline) = try playAndRender(["chord", "Cmaj7", "--duration", "1", "--quiet"])
        #expect(live == offline)
    }

    @Test("A strummed chord plays live bit for bit as it renders")
    func strummedChordLive() throws {
        let (live, offline) = try playAndRender(["chord", "Cmaj7", "--strum", "40", "--duration", "1", "--quiet"])
        #expect(live == offline)
    }

    @Test(
        "arp through a SoundFont (TimGM6mb) plays live bit for bit as it renders, up to the render's 5 ms fade-out"
    )
    func soundFontArpLive() throws {
        let (live, offline) = try playAndRender([
            "arp", "C Am F G", "--soundfont", "/usr/share/sounds/sf2/TimGM6mb.sf2", "--bars", "2", "--quiet",
        ])
        let count = offline[0].count
        let fade = 240
        #expect(count == 192_000)
        guard live.count == 2, live[0].count == count else { return }
        #expect(live.map { Array($0[..<(count - fade)]) } == offline.map { Array($0[..<(count - fade)]) })
        // The last G chord still sounds at the end: live it rings on, the render fades it.
        #expect(abs(live[0][count - 1]) > 0.001)
        #expect(offline[0][count - 1] == 0)
        let faded = live.map { channel in
            (count - fade..<count).map { channel[$0] * (Float(count - 1 - $0) / Float(fade)) }
        }
        #expect(faded == offline.map { Array($0[(count - fade)...]) })
    }
}
