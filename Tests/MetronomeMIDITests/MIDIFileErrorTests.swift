import MetronomeMIDI
import MetronomeTestSupport
import Testing

@Suite("Standard MIDI Files: malformed input")
struct MIDIFileErrorTests {
    /// A file of one track holding `body` (the body starts at byte 22).
    static func one(_ body: [UInt8]) -> [UInt8] { SMF.file(body) }

    @Test("Header faults: each message and offset exactly")
    func header() {
        #expect(SMF.error([]) == #"at byte 0: expected an "MThd" chunk, found the end of the data"#)
        #expect(SMF.error(Array("RIFF0000".utf8)) == #"at byte 0: expected an "MThd" chunk, found "RIFF""#)
        #expect(SMF.error([0, 1, 2, 3]) == #"at byte 0: expected an "MThd" chunk, found 0x00 0x01 0x02 0x03"#)
        #expect(
            SMF.error(Array("MThd".utf8) + [0, 0])
                == "at byte 4: expected the header chunk's length, found the end of the data")
        #expect(
            SMF.error(Array("MThd".utf8) + [0, 0, 0, 5, 0, 0, 0, 1, 0])
                == "at byte 4: the header chunk says 5 bytes; a header needs at least 6")
        #expect(
            SMF.error(Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0])
                == "at byte 4: the header chunk says 6 bytes but only 5 remain")
        #expect(
            SMF.error(SMF.file(format: 2, SMF.endOfTrack))
                == "at byte 8: format 2 (independent sequences) is not supported; formats 0 and 1 are")
        #expect(SMF.error(SMF.file(format: 7, SMF.endOfTrack)) == "at byte 8: expected format 0 or 1, found 7")
        #expect(
            SMF.error(SMF.file(division: 0, SMF.endOfTrack))
                == "at byte 12: expected 1 to 32767 ticks per quarter note, found 0")
        #expect(
            SMF.error(SMF.file(division: 0xE128, SMF.endOfTrack))
                == "at byte 12: expected SMPTE frames per second of 24, 25, 29 or 30, found 31")
        #expect(
            SMF.error(SMF.file(division: 0xE800, SMF.endOfTrack))
                == "at byte 13: expected 1 to 255 ticks per SMPTE frame, found 0")
    }

    @Test("Chunk faults: wrong, binary and missing chunks, sizes beyond the data")
    func chunks() {
        let header = SMF.header(tracks: 1)
        #expect(
            SMF.error(header + SMF.chunk("MTrx", SMF.endOfTrack))
                == #"at byte 14: expected an "MTrk" chunk, found "MTrx""#)
        #expect(
            SMF.error(header + [0x4D, 0x54, 0x00, 0x6B, 0, 0, 0, 0])
                == #"at byte 14: expected an "MTrk" chunk, found 0x4D 0x54 0x00 0x6B"#)
        #expect(
            SMF.error(SMF.header(tracks: 2) + SMF.track(SMF.endOfTrack))
                == #"at byte 26: expected an "MTrk" chunk (track 2 of 2), found the end of the data"#)
        #expect(
            SMF.error(header + Array("MTr".utf8))
                == #"at byte 14: expected an "MTrk" chunk (track 1 of 1), found only 3 bytes"#)
        #expect(
            SMF.error(header + Array("MTrk".utf8) + [0, 0, 2, 0] + SMF.endOfTrack)
                == "at byte 18: the track chunk says 512 bytes but only 4 remain")
        #expect(
            SMF.error(header + Array("XFIH".utf8) + [0, 0, 1, 0, 1])
                == #"at byte 18: the "XFIH" chunk says 256 bytes but only 1 remain"#)
    }

    @Test("Event faults: numbers, statuses, data bytes and meta lengths, at their offsets")
    func events() {
        #expect(
            SMF.error(Self.one([0x81, 0x80, 0x80, 0x80, 0x00, 0xFF, 0x2F, 0x00]))
                == "at byte 22: a variable-length number longer than 4 bytes")
        #expect(SMF.error(Self.one([0x81])) == "at byte 23: expected a delta time, found the end of the track chunk")
        #expect(SMF.error(Self.one([0x00])) == "at byte 23: expected a status byte, found the end of the track chunk")
        #expect(
            SMF.error(Self.one([0x00, 0x3C, 0x40]))
                == "at byte 23: expected a status byte, found data byte 0x3C with no running status in effect")
        #expect(
            SMF.error(Self.one([0x00, 0x90, 0x3C, 0x40, 0x00, 0xFF, 0x01, 0x00, 0x00, 0x3C, 0x00]))
                == "at byte 31: expected a status byte, found data byte 0x3C with no running status in effect")
        #expect(
            SMF.error(Self.one([0x00, 0x90, 0x3C, 0x40, 0x00, 0xF0, 0x01, 0xF7, 0x00, 0x3C, 0x00]))
                == "at byte 31: expected a status byte, found data byte 0x3C with no running status in effect")
        #expect(
            SMF.error(Self.one([0x00, 0x90, 0x3C, 0x90]))
                == "at byte 25: expected a velocity (0 to 127), found 0x90")
        #expect(
            SMF.error(Self.one([0x00, 0xC0]))
                == "at byte 24: expected a program number, found the end of the track chunk")
        #expect(
            SMF.error(Self.one([0x00, 0xF2, 0x00]))
                == "at byte 23: expected a channel message, meta or sysex event, found status 0xF2")
        #expect(
            SMF.error(Self.one([0x00, 0xFF, 0x01, 0x82, 0x2C, 0x41, 0x42]))
                == "at byte 27: the meta event says 300 bytes but only 2 remain in the track chunk")
        #expect(
            SMF.error(Self.one([0x00, 0xF0, 0x05, 0x01, 0xF7]))
                == "at byte 25: the sysex event says 5 bytes but only 2 remain in the track chunk")
        #expect(
            SMF.error(Self.one([0x00, 0xFF, 0x51, 0x04, 0x07, 0xA1, 0x20, 0x00]))
                == "at byte 25: expected a tempo of 3 bytes, found 4 bytes")
        #expect(
            SMF.error(Self.one([0x00, 0xFF, 0x58, 0x02, 0x04, 0x02]))
                == "at byte 25: expected a time signature of 4 bytes, found 2 bytes")
        #expect(
            SMF.error(Self.one([0x00, 0xFF, 0x2F, 0x01, 0x00]))
                == "at byte 25: expected an end of track of 0 bytes, found 1 bytes")
        #expect(
            SMF.error(Self.one([0x00, 0xFF, 0x59, 0x02, 0x01, 0x02]))
                == "at byte 27: expected a key signature's mode, 0 (major) or 1 (minor), found 2")
    }

    @Test("20,000 seeded mutations and truncations of valid files only ever throw MIDIFileError")
    func mutationSweep() {
        var random = SplitMix(seed: 0x5EED_5EF1)
        let seeds = (0..<8).map { _ in MIDIFileRoundTripTests.randomFile(&random).bytes() }
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            for _ in 0...Int.random(in: 0..<4, using: &random) {
                let index = Int.random(in: 0..<max(1, bytes.count), using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0 where !bytes.isEmpty: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1 where !bytes.isEmpty: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 2: bytes.removeLast(min(bytes.count, Int.random(in: 1...16, using: &random)))
                case 3: bytes.insert(UInt8.random(in: 0...255, using: &random), at: min(index, bytes.count))
                default: bytes = Array(bytes.prefix(index))
                }
            }
            // Typed throws: the only error possible is MIDIFileError; what must not happen is a trap.
            guard let file = try? MIDIFile(parsing: bytes) else { continue }
            accepted += 1
            #expect((try? MIDIFile(parsing: file.bytes())) == file)
            _ = try? file.timeline()
        }
        #expect(accepted > 100)
    }
}
