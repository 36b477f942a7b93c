extension MIDIFile {
    /// The events of one track chunk; `reader` ends at the chunk's end.
    /// - Complexity: O(n), n the chunk's bytes; every event takes at least 2 bytes, so the event count is bounded
    ///   by them.
    static func track(_ reader: inout MIDIByteReader) throws(MIDIFileError) -> MIDITrack {
        var events: [MIDITrackEvent] = []
        var ticks: Int64 = 0
        var runningStatus: UInt8?
        while reader.remaining > 0 {
            let delta = try reader.variableLength("a delta time")
            // At most 2²⁸ ticks an event, events at most the bytes: far from overflow, but checked all the same.
            let (sum, overflow) = ticks.addingReportingOverflow(Int64(delta))
            guard !overflow else {
                throw MIDIFileError(offset: reader.offset, message: "the track's time passes the largest tick count")
            }
            ticks = sum
            let statusOffset = reader.offset
            var status = try reader.byte("a status byte")
            if status < 0x80 {
                guard let runningStatus else {
                    throw MIDIFileError(
                        offset: statusOffset,
                        message: "expected a status byte, found data byte \(MIDIByteReader.hex(status)) "
                            + "with no running status in effect")
                }
                reader.offset = statusOffset
                status = runningStatus
            }
            switch status {
            case 0xFF:
                runningStatus = nil
                guard let event = try meta(&reader) else { continue }
                events.append(MIDITrackEvent(ticks: ticks, event))
                if event == .endOfTrack { return MIDITrack(events: events) }
            case 0xF0, 0xF7:
                runningStatus = nil
                let length = try reader.variableLength("a sysex event's length")
                _ = try reader.take(length, sizeOf: "the sysex event")
            case 0x80...0xEF:
                runningStatus = status
                events.append(MIDITrackEvent(ticks: ticks, try channelMessage(status, &reader)))
            default:
                throw MIDIFileError(
                    offset: statusOffset,
                    message:
                        "expected a channel message, meta or sysex event, found status \(MIDIByteReader.hex(status))")
            }
        }
        events.append(MIDITrackEvent(ticks: ticks, .endOfTrack))
        return MIDITrack(events: events)
    }

    /// A channel message after its status byte (or, under running status, from its first data byte).
    private static func channelMessage(_ status: UInt8, _ reader: inout MIDIByteReader) throws(MIDIFileError)
        -> MIDIEvent
    {
        let channel = status & 0x0F
        switch status >> 4 {
        case 0x8:
            return .noteOff(
                channel: channel, key: try data(&reader, "a key number"), velocity: try data(&reader, "a velocity"))
        case 0x9:
            return .noteOn(
                channel: channel, key: try data(&reader, "a key number"), velocity: try data(&reader, "a velocity"))
        case 0xA:
            return .polyPressure(
                channel: channel, key: try data(&reader, "a key number"), pressure: try data(&reader, "a pressure"))
        case 0xB:
            return .controlChange(
                channel: channel, controller: try data(&reader, "a controller number"),
                value: try data(&reader, "a controller value"))
        case 0xC:
            return .programChange(channel: channel, program: try data(&reader, "a program number"))
        case 0xD:
            return .channelPressure(channel: channel, pressure: try data(&reader, "a pressure"))
        default:
            let low = try data(&reader, "a pitch bend's low 7 bits")
            let high = try data(&reader, "a pitch bend's high 7 bits")
            return .pitchBend(channel: channel, value: UInt16(high) << 7 | UInt16(low))
        }
    }

    /// One data byte, 0...127.
    private static func data(_ reader: inout MIDIByteReader, _ what: String) throws(MIDIFileError) -> UInt8 {
        let offset = reader.offset
        let byte = try reader.byte(what)
        guard byte < 0x80 else {
            throw MIDIFileError(
                offset: offset, message: "expected \(what) (0 to 127), found \(MIDIByteReader.hex(byte))")
        }
        return byte
    }

    /// A meta event after its FF byte, or nil for a type that is skipped.
    private static func meta(_ reader: inout MIDIByteReader) throws(MIDIFileError) -> MIDIEvent? {
        let type = try reader.byte("a meta event type")
        let lengthOffset = reader.offset
        let length = try reader.variableLength("a meta event's length")
        let body = try reader.take(length, sizeOf: "the meta event")
        func requireLength(_ expected: Int, _ name: String) throws(MIDIFileError) {
            guard length == expected else {
                throw MIDIFileError(
                    offset: lengthOffset, message: "expected \(name) of \(expected) bytes, found \(length) bytes")
            }
        }
        let field = { (index: Int) in body[body.startIndex + index] }
        switch type {
        case 0x2F:
            try requireLength(0, "an end of track")
            return .endOfTrack
        case 0x51:
            try requireLength(3, "a tempo")
            return .tempo(microsecondsPerQuarter: UInt32(field(0)) << 16 | UInt32(field(1)) << 8 | UInt32(field(2)))
        case 0x58:
            try requireLength(4, "a time signature")
            return .timeSignature(
                numerator: field(0), denominatorPower: field(1), clocksPerClick: field(2),
                thirtySecondsPerQuarter: field(3))
        case 0x59:
            try requireLength(2, "a key signature")
            guard field(1) <= 1 else {
                throw MIDIFileError(
                    offset: lengthOffset + 2,
                    message: "expected a key signature's mode, 0 (major) or 1 (minor), found \(field(1))")
            }
            return .keySignature(sharps: Int8(bitPattern: field(0)), minor: field(1) == 1)
        default:
            guard let kind = MIDITextKind(rawValue: type) else { return nil }
            return .text(kind, Array(body))
        }
    }
}
