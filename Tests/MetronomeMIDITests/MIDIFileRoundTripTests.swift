import Foundation
import MetronomeMIDI
import MetronomeTestSupport
import Testing

@Suite("Standard MIDI Files: writing and round trips")
struct MIDIFileRoundTripTests {
    /// A valid file of random events: 1...4 tracks of 0...40 events each, every kind, ticks non-decreasing.
    static func randomFile(_ random: inout SplitMix) -> MIDIFile {
        func byte(_ range: ClosedRange<UInt8> = 0...127) -> UInt8 { UInt8.random(in: range, using: &random) }
        let divisions: [MIDIDivision] = [
            .ticksPerQuarter(96), .ticksPerQuarter(480), .ticksPerQuarter(Int.random(in: 1...0x7FFF, using: &random)),
            .smpte(framesPerSecond: 25, ticksPerFrame: 40),
            .smpte(framesPerSecond: [24, 29, 30].randomElement(using: &random)!, ticksPerFrame: Int(byte(1...255))),
        ]
        var tracks: [MIDITrack] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            var ticks: Int64 = 0
            var events: [MIDITrackEvent] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                ticks += [0, 0, 1, 7, 96, 1000, 0x0FFF_FFFF, 0x2FFF_FFFF].randomElement(using: &random)!
                let channel = byte(0...15)
                let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in byte(0...255) }
                let event: MIDIEvent
                switch Int.random(in: 0..<12, using: &random) {
                case 0: event = .noteOff(channel: channel, key: byte(), velocity: byte())
                case 1: event = .noteOn(channel: channel, key: byte(), velocity: byte())
                case 2: event = .polyPressure(channel: channel, key: byte(), pressure: byte())
                case 3: event = .controlChange(channel: channel, controller: byte(), value: byte())
                case 4: event = .programChange(channel: channel, program: byte())
                case 5: event = .channelPressure(channel: channel, pressure: byte())
                case 6: event = .pitchBend(channel: channel, value: UInt16.random(in: 0...16383, using: &random))
                case 7: event = .tempo(microsecondsPerQuarter: UInt32.random(in: 0...0xFF_FFFF, using: &random))
                case 8:
                    event = .timeSignature(
                        numerator: byte(0...255), denominatorPower: byte(0...255), clocksPerClick: byte(0...255),
                        thirtySecondsPerQuarter: byte(0...255))
                case 9:
                    event = .keySignature(sharps: Int8(bitPattern: byte(0...255)), minor: Bool.random(using: &random))
                default: event = .text(MIDITextKind.allCases.randomElement(using: &random)!, text)
                }
                events.append(MIDITrackEvent(ticks: ticks, event))
            }
            events.append(MIDITrackEvent(ticks: ticks, .endOfTrack))
            tracks.append(MIDITrack(events: events))
        }
        let format: MIDIFileFormat =
            tracks.count == 1 && Bool.random(using: &random) ? .singleTrack : .simultaneousTracks
        return MIDIFile(format: format, division: divisions.randomElement(using: &random)!, tracks: tracks)
    }

    @Test("read(write(file)) == file for 500 random valid files")
    func randomRoundTrips() throws {
        var random = SplitMix(seed: 11)
        for _ in 0..<500 {
            let file = Self.randomFile(&random)
            #expect(try MIDIFile(parsing: file.bytes()) == file)
        }
    }

    @Test("The writer's bytes: header, status on every event, end of track added when missing, nothing after one")
    func writtenBytes() throws {
        let file = MIDIFile(
            format: .singleTrack, division: .smpte(framesPerSecond: 25, ticksPerFrame: 40),
            tracks: [
                MIDITrack(events: [
                    MIDITrackEvent(ticks: 0, .noteOn(channel: 9, key: 36, velocity: 100)),
                    MIDITrackEvent(ticks: 200, .noteOn(channel: 9, key: 36, velocity: 0)),
                ])
            ])
        let track: [UInt8] = [0x00, 0x99, 36, 100, 0x81, 0x48, 0x99, 36, 0] + SMF.endOfTrack
        #expect(file.bytes() == SMF.header(format: 0, tracks: 1, division: 0xE728) + SMF.track(track))
        var ended = file
        ended.tracks[0].events.insert(MIDITrackEvent(ticks: 100, .endOfTrack), at: 1)
        #expect(
            ended.bytes()
                == SMF.header(format: 0, tracks: 1, division: 0xE728)
                + SMF.track([0x00, 0x99, 36, 100, 0x64, 0xFF, 0x2F, 0x00]))
    }

    /// Whether to run the mido tests: when `python3` can import mido, and always under .ci/test (which installs it
    /// and sets `METRONOME_REQUIRE_PYTHON_OSC`; a missing mido then fails instead of skipping).
    static let midoRuns: Bool = {
        if ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil { return true }
        guard let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import mido"]) else { return false }
        return child.wait().status == 0
    }()

    /// The file the mido script builds, as our model holds it. Built on each use rather than kept in a static: Swift
    /// stores the array of a `.text` event with the enum's case in its pointer's spare high bits, a word
    /// LeakSanitizer's scan does not take for a pointer, so a static holding one is reported as leaked at exit (a
    /// 12-line program holding `[.text(_, Array("Conductor".utf8))]` in a static reports its 41 bytes; the stored
    /// word was 0x6000_5638_18d6_1a30).
    static var midoSong: MIDIFile {
        MIDIFile(
            format: .simultaneousTracks, division: .ticksPerQuarter(480),
            tracks: [
                MIDITrack(events: [
                    MIDITrackEvent(ticks: 0, .text(.trackName, Array("Conductor".utf8))),
                    MIDITrackEvent(ticks: 0, .tempo(microsecondsPerQuarter: 461_538)),
                    MIDITrackEvent(
                        ticks: 0,
                        .timeSignature(
                            numerator: 6, denominatorPower: 3, clocksPerClick: 36, thirtySecondsPerQuarter: 8)),
                    MIDITrackEvent(ticks: 0, .keySignature(sharps: -2, minor: true)),
                    MIDITrackEvent(ticks: 1441, .text(.marker, Array("Chorus".utf8))),
                    MIDITrackEvent(ticks: 1441, .tempo(microsecondsPerQuarter: 600_000)),
                    MIDITrackEvent(ticks: 2000, .endOfTrack),
                ]),
                MIDITrack(events: [
                    MIDITrackEvent(ticks: 0, .text(.trackName, Array("Piano".utf8))),
                    MIDITrackEvent(ticks: 0, .programChange(channel: 0, program: 5)),
                    MIDITrackEvent(ticks: 0, .controlChange(channel: 0, controller: 7, value: 100)),
                    MIDITrackEvent(ticks: 3, .noteOn(channel: 0, key: 60, velocity: 90)),
                    MIDITrackEvent(ticks: 3, .noteOn(channel: 0, key: 64, velocity: 91)),
                    MIDITrackEvent(ticks: 500, .pitchBend(channel: 0, value: 0)),
                    MIDITrackEvent(ticks: 501, .pitchBend(channel: 0, value: 16383)),
                    MIDITrackEvent(ticks: 700, .noteOn(channel: 0, key: 60, velocity: 0)),
                    MIDITrackEvent(ticks: 701, .noteOff(channel: 0, key: 64, velocity: 40)),
                    MIDITrackEvent(ticks: 800, .channelPressure(channel: 0, pressure: 33)),
                    MIDITrackEvent(ticks: 801, .polyPressure(channel: 0, key: 60, pressure: 34)),
                    MIDITrackEvent(ticks: 1441, .noteOn(channel: 9, key: 36, velocity: 127)),
                    MIDITrackEvent(ticks: 1500, .endOfTrack),
                ]),
            ])
    }

    /// Builds `midoSong` with mido, except for a sysex it adds (which we skip), and prints its bytes in hex; or,
    /// given a path, reads that file with mido and prints every message as mido sees it.
    static let midoScript = #"""
        import io, sys, mido
        from mido import MidiFile, MidiTrack, Message, MetaMessage
        if len(sys.argv) > 1:
            for index, track in enumerate(MidiFile(sys.argv[1]).tracks):
                now = 0
                for message in track:
                    now += message.time
                    print(index, now, repr(message.copy(time=0)))
            sys.exit(0)
        song = MidiFile(type=1, ticks_per_beat=480)
        conductor, piano = MidiTrack(), MidiTrack()
        song.tracks += [conductor, piano]
        conductor += [MetaMessage("track_name", name="Conductor"), MetaMessage("set_tempo", tempo=461538),
            MetaMessage("time_signature", numerator=6, denominator=8, clocks_per_click=36),
            MetaMessage("key_signature", key="Gm"), MetaMessage("marker", text="Chorus", time=1441),
            MetaMessage("set_tempo", tempo=600000), MetaMessage("end_of_track", time=559)]
        piano += [MetaMessage("track_name", name="Piano"), Message("program_change", program=5),
            Message("control_change", control=7, value=100), Message("sysex", data=[0x7E, 0x7F, 9, 1]),
            Message("note_on", note=60, velocity=90, time=3), Message("note_on", note=64, velocity=91),
            Message("pitchwheel", pitch=-8192, time=497), Message("pitchwheel", pitch=8191, time=1),
            Message("note_on", note=60, velocity=0, time=199), Message("note_off", note=64, velocity=40, time=1),
            Message("aftertouch", value=33, time=99), Message("polytouch", note=60, value=34, time=1),
            Message("note_on", channel=9, note=36, velocity=127, time=640), MetaMessage("end_of_track", time=59)]
        out = io.BytesIO()
        song.save(file=out)
        print(out.getvalue().hex())
        """#

    @Test(
        "mido's file reads as the song; mido reads our file as the song",
        .enabled(if: midoRuns, "mido is not installed: run .ci/install-packages, or python3 -m pip install mido"))
    func mido() throws {
        let build = try ChildProcess("/usr/bin/env", ["python3", "-c", Self.midoScript]).wait()
        try #require(build.status == 0, "python3 with mido failed: \(build.standardError)")
        let midoBytes = SMF.bytes(hex: build.standardOutput.split(separator: "\n")[0])
        #expect(try MIDIFile(parsing: midoBytes) == Self.midoSong)

        let path = NSTemporaryDirectory() + "metronome-mido-\(UUID().uuidString.prefix(8)).mid"
        defer { unlink(path) }
        try Data(Self.midoSong.bytes()).write(to: URL(fileURLWithPath: path))
        let read = try ChildProcess("/usr/bin/env", ["python3", "-c", Self.midoScript, path]).wait()
        try #require(read.status == 0, "mido could not read our file: \(read.standardError)")
        let lines = read.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "0 0 MetaMessage('track_name', name='Conductor', time=0)",
                "0 0 MetaMessage('set_tempo', tempo=461538, time=0)",
                "0 0 MetaMessage('time_signature', numerator=6, denominator=8, clocks_per_click=36, "
                    + "notated_32nd_notes_per_beat=8, time=0)",
                "0 0 MetaMessage('key_signature', key='Gm', time=0)",
                "0 1441 MetaMessage('marker', text='Chorus', time=0)",
                "0 1441 MetaMessage('set_tempo', tempo=600000, time=0)",
                "0 2000 MetaMessage('end_of_track', time=0)",
                "1 0 MetaMessage('track_name', name='Piano', time=0)",
                "1 0 Message('program_change', channel=0, program=5, time=0)",
                "1 0 Message('control_change', channel=0, control=7, value=100, time=0)",
                "1 3 Message('note_on', channel=0, note=60, velocity=90, time=0)",
                "1 3 Message('note_on', channel=0, note=64, velocity=91, time=0)",
                "1 500 Message('pitchwheel', channel=0, pitch=-8192, time=0)",
                "1 501 Message('pitchwheel', channel=0, pitch=8191, time=0)",
                "1 700 Message('note_on', channel=0, note=60, velocity=0, time=0)",
                "1 701 Message('note_off', channel=0, note=64, velocity=40, time=0)",
                "1 800 Message('aftertouch', channel=0, value=33, time=0)",
                "1 801 Message('polytouch', channel=0, note=60, value=34, time=0)",
                "1 1441 Message('note_on', channel=9, note=36, velocity=127, time=0)",
                "1 1500 MetaMessage('end_of_track', time=0)",
            ])
    }
}
