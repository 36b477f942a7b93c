extension MIDIFile {
    /// The file as Standard MIDI File bytes: an MThd header with the model's format, track count and division, then
    /// one MTrk chunk per track, every event with its status byte (no running status).
    ///
    /// Each track ends with an end of track: one is added at the track's last tick when missing, and events after
    /// the first one are not written (a reader stops there). Events further apart than `MIDITrack.maximumDelta`
    /// ticks (one delta's limit) are bridged by empty sequencer-specific meta events (FF 7F 00), which readers skip.
    /// Values are written into their fields as the model documents them; a value outside its range is cut to the
    /// field (data bytes to 7 bits, channels to 4, pitch bend to 14, tempo to 24, ticks going back to a delta of 0),
    /// so only files with valid values read back equal.
    /// - Returns: the bytes of the whole file.
    /// - Complexity: O(n), n the events and text bytes.
    public func bytes() -> [UInt8] {
        var out: [UInt8] = Array("MThd".utf8)
        MIDIFile.appendBigEndian(6, bytes: 4, to: &out)
        MIDIFile.appendBigEndian(UInt32(format.rawValue), bytes: 2, to: &out)
        MIDIFile.appendBigEndian(UInt32(min(tracks.count, 0xFFFF)), bytes: 2, to: &out)
        switch division {
        case .ticksPerQuarter(let ticks):
            MIDIFile.appendBigEndian(UInt32(truncatingIfNeeded: ticks) & 0x7FFF, bytes: 2, to: &out)
        case .smpte(let frames, let ticks):
            out.append(UInt8(truncatingIfNeeded: -frames) | 0x80)
            out.append(UInt8(truncatingIfNeeded: ticks))
        }
        for track in tracks.prefix(0xFFFF) {
            let body = MIDIFile.trackBody(track)
            out += Array("MTrk".utf8)
            MIDIFile.appendBigEndian(UInt32(truncatingIfNeeded: body.count), bytes: 4, to: &out)
            out += body
        }
        return out
    }

    /// The bytes of one track chunk's body.
    private static func trackBody(_ track: MIDITrack) -> [UInt8] {
        var out: [UInt8] = []
        var last: Int64 = 0
        var ended = false
        for item in track.events {
            var delta = max(0, item.ticks &- last)
            last = max(last, item.ticks)
            // Skipped events (sysex, other metas) can leave kept ones further apart than one delta can say.
            while delta > MIDITrack.maximumDelta {
                appendVariableLength(Int(MIDITrack.maximumDelta), to: &out)
                out += [0xFF, 0x7F, 0x00]
                delta -= MIDITrack.maximumDelta
            }
            appendVariableLength(Int(delta), to: &out)
            append(item.event, to: &out)
            if item.event == .endOfTrack {
                ended = true
                break
            }
        }
        if !ended { out += [0, 0xFF, 0x2F, 0] }
        return out
    }

    /// One event with its status byte.
    private static func append(_ event: MIDIEvent, to out: inout [UInt8]) {
        func channel(_ kind: UInt8, _ channel: UInt8, _ data: UInt8...) {
            out.append(kind << 4 | channel & 0x0F)
            out += data.map { $0 & 0x7F }
        }
        func meta(_ type: UInt8, _ body: [UInt8]) {
            let body = body.prefix(Int(MIDITrack.maximumDelta))
            out += [0xFF, type]
            appendVariableLength(body.count, to: &out)
            out += body
        }
        switch event {
        case .noteOff(let ch, let key, let velocity): channel(0x8, ch, key, velocity)
        case .noteOn(let ch, let key, let velocity): channel(0x9, ch, key, velocity)
        case .polyPressure(let ch, let key, let pressure): channel(0xA, ch, key, pressure)
        case .controlChange(let ch, let controller, let value): channel(0xB, ch, controller, value)
        case .programChange(let ch, let program): channel(0xC, ch, program)
        case .channelPressure(let ch, let pressure): channel(0xD, ch, pressure)
        case .pitchBend(let ch, let value):
            channel(0xE, ch, UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 7))
        case .tempo(let microseconds):
            meta(0x51, [16, 8, 0].map { UInt8(truncatingIfNeeded: microseconds >> $0) })
        case .timeSignature(let numerator, let power, let clocks, let thirtySeconds):
            meta(0x58, [numerator, power, clocks, thirtySeconds])
        case .keySignature(let sharps, let minor):
            meta(0x59, [UInt8(bitPattern: sharps), minor ? 1 : 0])
        case .text(let kind, let text): meta(kind.rawValue, text)
        case .endOfTrack: meta(0x2F, [])
        }
    }

    /// A variable-length quantity (7 bits a byte, most significant first); values above 0x0FFFFFFF are cut to it.
    static func appendVariableLength(_ value: Int, to out: inout [UInt8]) {
        let value = min(Int(MIDITrack.maximumDelta), max(0, value))
        var shift = 21
        while shift > 0, value >> shift == 0 { shift -= 7 }
        while shift > 0 {
            out.append(UInt8(truncatingIfNeeded: value >> shift) & 0x7F | 0x80)
            shift -= 7
        }
        out.append(UInt8(truncatingIfNeeded: value) & 0x7F)
    }

    /// `value`'s low `bytes` bytes, most significant first.
    private static func appendBigEndian(_ value: UInt32, bytes: Int, to out: inout [UInt8]) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}
