import MetronomeMIDI
import Testing

@Suite("Standard MIDI Files: reading")
struct MIDIFileReadingTests {
    @Test("Meta events, every channel message, running status, sysex and unknown chunks and metas skipped")
    func readsEverything() throws {
        let conductor: [UInt8] =
            [0x00, 0xFF, 0x03, 0x05] + Array("Tempo".utf8)
            + [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]  // 500000 µs
            + [0x00, 0xFF, 0x58, 0x04, 0x03, 0x02, 0x18, 0x08]  // 3/4
            + [0x00, 0xFF, 0x59, 0x02, 0xFE, 0x01]  // G minor
            + [0x60, 0xFF, 0x06, 0x05] + Array("Verse".utf8)
            + [0x00, 0xFF, 0x00, 0x02, 0x00, 0x01]  // sequence number: skipped
            + [0x81, 0x40, 0xFF, 0x2F, 0x00]  // delta 192
        let notes: [UInt8] = [
            0x00, 0xC9, 0x10,  // program 16, channel 9
            0x00, 0x90, 0x3C, 0x64,  // note on
            0x10, 0x40, 0x50,  // running status: note on 64
            0x10, 0x3C, 0x00,  // running status: velocity 0
            0x00, 0xF0, 0x03, 0x7E, 0x7F, 0xF7,  // sysex: skipped
            0x00, 0x80, 0x40, 0x20,  // note off with velocity
            0x00, 0xB1, 0x07, 0x64, 0x00, 0x0A, 0x20,  // CC 7, running status CC 10
            0x00, 0xE2, 0x00, 0x40,  // pitch bend centre
            0x00, 0xD3, 0x55, 0x00, 0xA4, 0x3C, 0x22,
            0x00, 0xFF, 0x7F, 0x03, 0x00, 0x00, 0x41,  // sequencer-specific: skipped
            0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0x2F, 0x00,  // the largest delta
        ]
        let bytes =
            SMF.header(tracks: 2) + SMF.track(conductor) + SMF.chunk("XFIH", [1, 2, 3]) + SMF.track(notes)
            + [0xDE, 0xAD]
        let file = try MIDIFile(parsing: bytes)
        #expect(file.format == .simultaneousTracks && file.division == .ticksPerQuarter(96))
        #expect(file.tracks.map(\.name) == ["Tempo", nil])
        #expect(
            file.tracks[0].events == [
                MIDITrackEvent(ticks: 0, .text(.trackName, Array("Tempo".utf8))),
                MIDITrackEvent(ticks: 0, .tempo(microsecondsPerQuarter: 500_000)),
                MIDITrackEvent(
                    ticks: 0,
                    .timeSignature(numerator: 3, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)),
                MIDITrackEvent(ticks: 0, .keySignature(sharps: -2, minor: true)),
                MIDITrackEvent(ticks: 96, .text(.marker, Array("Verse".utf8))),
                MIDITrackEvent(ticks: 288, .endOfTrack),
            ])
        #expect(
            file.tracks[1].events == [
                MIDITrackEvent(ticks: 0, .programChange(channel: 9, program: 16)),
                MIDITrackEvent(ticks: 0, .noteOn(channel: 0, key: 60, velocity: 100)),
                MIDITrackEvent(ticks: 16, .noteOn(channel: 0, key: 64, velocity: 80)),
                MIDITrackEvent(ticks: 32, .noteOn(channel: 0, key: 60, velocity: 0)),
                MIDITrackEvent(ticks: 32, .noteOff(channel: 0, key: 64, velocity: 32)),
                MIDITrackEvent(ticks: 32, .controlChange(channel: 1, controller: 7, value: 100)),
                MIDITrackEvent(ticks: 32, .controlChange(channel: 1, controller: 10, value: 32)),
                MIDITrackEvent(ticks: 32, .pitchBend(channel: 2, value: 8192)),
                MIDITrackEvent(ticks: 32, .channelPressure(channel: 3, pressure: 0x55)),
                MIDITrackEvent(ticks: 32, .polyPressure(channel: 4, key: 60, pressure: 0x22)),
                MIDITrackEvent(ticks: 32 + 0x0FFF_FFFF, .endOfTrack),
            ])
        #expect(file.tracks[1].events[3].event.isNoteOff && file.tracks[1].events[4].event.isNoteOff)
        #expect(!file.tracks[1].events[1].event.isNoteOff)
    }

    @Test("A track without an end of track gets one at its last event's tick; events after one are ignored")
    func endOfTrack() throws {
        let missing = try MIDIFile(parsing: SMF.file(format: 0, [0x05, 0x90, 0x3C, 0x64]))
        #expect(
            missing.tracks[0].events == [
                MIDITrackEvent(ticks: 5, .noteOn(channel: 0, key: 60, velocity: 100)),
                MIDITrackEvent(ticks: 5, .endOfTrack),
            ])
        let empty = try MIDIFile(parsing: SMF.file([]))
        #expect(empty.tracks == [MIDITrack(events: [MIDITrackEvent(ticks: 0, .endOfTrack)])])
        let padded = try MIDIFile(parsing: SMF.file(SMF.endOfTrack + [0, 0, 0, 0]))
        #expect(padded.tracks[0].events == [MIDITrackEvent(ticks: 0, .endOfTrack)])
    }

    @Test("SMPTE divisions, 29 meaning 29.97 frames a second; longer headers are honoured; zero tracks")
    func divisions() throws {
        #expect(
            try MIDIFile(parsing: SMF.file(division: 0xE728, SMF.endOfTrack)).division
                == .smpte(framesPerSecond: 25, ticksPerFrame: 40))
        let drop = try MIDIFile(parsing: SMF.file(division: 0xE304, SMF.endOfTrack)).division
        #expect(drop == .smpte(framesPerSecond: 29, ticksPerFrame: 4))
        #expect(drop.ticksPerSecond! == (120_000, 1001))
        #expect(MIDIDivision.smpte(framesPerSecond: 30, ticksPerFrame: 80).ticksPerSecond! == (2400, 1))
        let long = Array("MThd".utf8) + [0, 0, 0, 8, 0, 0, 0, 1, 1, 0xE0, 0xAA, 0xBB] + SMF.track(SMF.endOfTrack)
        #expect(try MIDIFile(parsing: long).division == .ticksPerQuarter(480))
        #expect(try MIDIFile(parsing: SMF.header(tracks: 0)).tracks.isEmpty)
    }
}
