import Foundation
import MetronomeMIDI
import MetronomeTestSupport
import Testing

@Suite("play FILE.mid live through a real PulseAudio server", .serialized)
struct MIDILiveTests {
    static let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    /// Two bars of 4/4 at 132 BPM: a piano (program 0) playing C E G up and a chord, bass (program 33) on channel 2, a
    /// pitch bend and a volume change on channel 1, kick and hi-hat on channel 10.
    static func song() -> MIDIFile {
        var music: [MIDITrackEvent] = [
            MIDITrackEvent(ticks: 0, .programChange(channel: 0, program: 0)),
            MIDITrackEvent(ticks: 0, .programChange(channel: 1, program: 33)),
        ]
        func note(_ tick: Int64, _ channel: UInt8, _ key: UInt8, _ length: Int64) {
            music.append(MIDITrackEvent(ticks: tick, .noteOn(channel: channel, key: key, velocity: 100)))
            music.append(MIDITrackEvent(ticks: tick + length, .noteOff(channel: channel, key: key, velocity: 64)))
        }
        for (index, key) in [60, 64, 67, 72].enumerated() { note(Int64(index) * 480, 0, UInt8(key), 400) }
        for key in [60, 64, 67] as [UInt8] { note(1920, 0, key, 1700) }
        for beat in 0..<8 { note(Int64(beat) * 480, 1, beat < 4 ? 36 : 43, 440) }
        for beat in 0..<8 {
            note(Int64(beat) * 480, 9, beat % 2 == 0 ? 36 : 38, 100)
            note(Int64(beat) * 480 + 240, 9, 42, 100)
        }
        music.append(MIDITrackEvent(ticks: 2400, .pitchBend(channel: 0, value: 10000)))
        music.append(MIDITrackEvent(ticks: 2880, .controlChange(channel: 0, controller: 7, value: 70)))
        let ordered = music.enumerated().sorted { ($0.element.ticks, $0.offset) < ($1.element.ticks, $1.offset) }
        let map = [
            MIDITrackEvent(ticks: 0, .tempo(microsecondsPerQuarter: 454_545)),
            MIDITrackEvent(
                ticks: 0,
                .timeSignature(numerator: 4, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
            MIDITrackEvent(ticks: 0, .endOfTrack),
        ]
        return MIDIFile(
            format: .simultaneousTracks, division: .ticksPerQuarter(480),
            tracks: [
                MIDITrack(events: map),
                MIDITrack(events: ordered.map(\.element) + [MIDITrackEvent(ticks: 3840, .endOfTrack)]),
            ])
    }

    @Test(
        "A General MIDI song with the click, played live with TimGM6mb, is bit-identical to its render",
        .enabled(if: FileManager.default.fileExists(atPath: font), "timgm6mb-soundfont is not installed"))
    func songLive() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let path = scratch.file("song.mid")
        try Data(Self.song().bytes()).write(to: URL(fileURLWithPath: path))
        let arguments = ["play", path, "--soundfont", Self.font, "--click", "--quiet"]
        let (recorded, offline) = try playLiveAndRender(arguments, server: server, scratch: scratch)
        // The click's first frame is not zero: the render's frame 0 is the first sounding frame of the recording.
        #expect(offline[0] != 0)
        let start = try #require(onsets(recorded).first)
        // Live playback ends once the last voice has died away; the render lasts a fixed 2 s past the file's end, so
        // it may go on longer — in silence. Up to where the live run stopped, the two are the same samples.
        let heard = min(recorded.count - start, offline.count)
        #expect(heard > offline.count / 2)
        #expect(Array(recorded[start..<(start + heard)]) == Array(offline[0..<heard]))
        #expect(offline[heard...].allSatisfy { $0 == 0 })
    }

    @Test(
        "--duration ends a live play on time even with a looped note held across the end (it used to play forever)",
        .enabled(if: FileManager.default.fileExists(atPath: font), "timgm6mb-soundfont is not installed"))
    func durationWithHeldNote() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let path = scratch.file("organ.mid")
        // A church organ (program 19, a looped sample) holding C for 20 s.
        let events = [
            MIDITrackEvent(ticks: 0, .tempo(microsecondsPerQuarter: 500_000)),
            MIDITrackEvent(ticks: 0, .programChange(channel: 0, program: 19)),
            MIDITrackEvent(ticks: 0, .noteOn(channel: 0, key: 60, velocity: 100)),
            MIDITrackEvent(ticks: 19_200, .noteOff(channel: 0, key: 60, velocity: 64)),
            MIDITrackEvent(ticks: 19_200, .endOfTrack),
        ]
        let file = MIDIFile(
            format: .singleTrack, division: .ticksPerQuarter(480), tracks: [MIDITrack(events: events)])
        try Data(file.bytes()).write(to: URL(fileURLWithPath: path))
        let child = try CommandRunner.start(
            ["play", path, "--soundfont", Self.font, "--duration", "1", "--quiet", "--verbose"],
            environment: server.clientEnvironment)
        // One second of music, the stream's start and a 5 ms fade: 15 s is only there to end a hang.
        var waited = 0
        while !child.hasExited, waited < 150 {
            usleep(100_000)
            waited += 1
        }
        let ended = child.hasExited
        if !ended { child.send(SIGKILL) }
        let result = child.wait()
        #expect(ended)
        #expect(result.status == 0)
        #expect(result.standardError.contains("metronome: late events: 0\n"))
        // The clock fit's account (`--verbose`, CHANGELOG), in its form; its counts are ClockEstimatorTests'.
        let fit = result.standardError.split(separator: "\n").first { $0.hasPrefix("metronome: clock fit: ") }
        let form =
            /metronome: clock fit: \d+ reports left out, \d+ restarts after reports left out in a row( \(the largest moved the clock -?\d+(\.\d+)? ms\))?/
        #expect(fit?.wholeMatch(of: form) != nil, "\(result.standardError)")
        // The write callbacks' line, with what the callback of the longest own doing used (`--verbose`, CHANGELOG).
        let callbacks = result.standardError.split(separator: "\n").first {
            $0.hasPrefix("metronome: write callbacks: ")
        }
        let callbackForm =
            /metronome: write callbacks: \d+, the longest \d+(\.\d+)? ms \(own at most \d+(\.\d+)? ms: on the CPU, or waiting; that one \d+(\.\d+)? ms on the CPU, \d+ waits, \d+ page faults, \d+ frames, from monotonic \d+ ns for \d+(\.\d+)? ms\), the widest gap between two \d+(\.\d+)? ms/
        #expect(callbacks?.wholeMatch(of: callbackForm) != nil, "\(result.standardError)")
    }
}
