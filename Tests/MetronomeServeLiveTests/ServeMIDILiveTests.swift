import Foundation
import MetronomeFiles
import MetronomeMIDI
import MetronomeTestSupport
import Testing

/// `metronome serve FILE.mid`: a MIDI file served with its click, started and stopped over OSC, played live through a
/// private PulseAudio server's null sink and recorded.
@Suite(
    "metronome serve of a MIDI file, live through a real PulseAudio server", .serialized,
    .enabled(if: PythonOSCClient.available, PythonOSCClient.missing))
struct ServeMIDILiveTests {
    static let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    /// Two bars at 120 BPM: a bass note on every beat (channel 1), a chord on beat one of each bar (channel 2).
    static func song() -> [UInt8] {
        var events: [MIDITrackEvent] = [
            MIDITrackEvent(ticks: 0, .programChange(channel: 0, program: 33)),
            MIDITrackEvent(ticks: 0, .programChange(channel: 1, program: 0)),
        ]
        for beat in 0..<8 {
            let tick = Int64(beat * 480)
            events.append(MIDITrackEvent(ticks: tick, .noteOn(channel: 0, key: 40, velocity: 100)))
            events.append(MIDITrackEvent(ticks: tick + 400, .noteOff(channel: 0, key: 40, velocity: 0)))
            if beat % 4 == 0 {
                for key: UInt8 in [60, 64, 67] {
                    events.append(MIDITrackEvent(ticks: tick, .noteOn(channel: 1, key: key, velocity: 90)))
                    events.append(MIDITrackEvent(ticks: tick + 1800, .noteOff(channel: 1, key: key, velocity: 0)))
                }
            }
        }
        events.sort { $0.ticks < $1.ticks }
        return MIDIFile(format: .singleTrack, division: .ticksPerQuarter(480), tracks: [MIDITrack(events: events)])
            .bytes()
    }

    @Test(
        "serve song.mid plays the file's notes through the SoundFont with the click along, bit for bit what play --click renders"
    )
    func servedEqualsRendered() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let song = scratch.file("song.mid")
        try Data(Self.song()).write(to: URL(fileURLWithPath: song))
        let run = try serveAndRecord([song, "--soundfont", Self.font], server: server) { port in
            try PythonOSCClient.run(
                """
                start()
                until_beat(lambda bar, beat, tempo: (bar, beat) == (2, 4))
                finish()
                """, port: port, as: BeatsReport.self)
        }
        expectClean(run)
        let rendered = scratch.file("song.wav")
        let render = try CommandRunner.run([
            "play", song, "--click", "--soundfont", Self.font, "-o", rendered, "--quiet",
        ])
        #expect(render.status == 0, "\(render.standardError)")
        let offline = try AudioFileReader.read(path: rendered).channels[0]
        // Seven beats heard: compare the first six, well before the quit's fade.
        expectRecording(run.recording, equals: offline, frames: 6 * 24000)
        #expect(run.recording[0..<(6 * 24000)].contains { abs($0) > 0.05 })
    }
}
