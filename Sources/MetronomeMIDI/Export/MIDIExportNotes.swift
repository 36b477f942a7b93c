import MetronomeMusic

/// Note tracks of an exported MIDI file (`MIDIExport`): notes paired into note-on and note-off events so that no
/// key is struck again while it still sounds.
enum MIDIExportNotes {
    /// A note in file ticks.
    struct Note {
        var on: Int64
        var off: Int64
        var key: UInt8
        var velocity: UInt8
    }

    /// A track: its name, the program change, then the notes and messages in tick order (at one tick: note-offs,
    /// then messages, then note-ons), closed by an end of track at `endTick` or its last event.
    ///
    /// A note lasts at least one tick, and ends where the next note on the same key starts when that comes sooner;
    /// of several notes on one key at one tick only the first is kept.
    /// - Complexity: O(n log n), n the notes and messages.
    static func track(
        name: String, channel: UInt8, program: UInt8?, notes: [Note], messages: [(Int64, ChannelMessage)],
        endTick: Int64
    ) -> MIDITrack {
        var timed: [(tick: Int64, order: Int, event: MIDIEvent)] = [(0, 0, .text(.trackName, Array(name.utf8)))]
        if let program { timed.append((0, 1, .programChange(channel: channel, program: program))) }
        var kept: [Note] = []
        var lastOfKey: [Int?] = Array(repeating: nil, count: 128)
        for var note in notes.sorted(by: { $0.on < $1.on }) {
            if let previous = lastOfKey[Int(note.key)] {
                if kept[previous].on == note.on { continue }
                kept[previous].off = min(kept[previous].off, note.on)
            }
            note.off = max(note.off, note.on + 1)
            lastOfKey[Int(note.key)] = kept.count
            kept.append(note)
        }
        for note in kept {
            timed.append((note.on, 4, .noteOn(channel: channel, key: note.key, velocity: note.velocity)))
            timed.append((note.off, 2, .noteOff(channel: channel, key: note.key, velocity: 0)))
        }
        for (tick, message) in messages { timed.append((tick, 3, event(message, channel: channel))) }
        let ordered = timed.enumerated().sorted {
            ($0.element.tick, $0.element.order, $0.offset) < ($1.element.tick, $1.element.order, $1.offset)
        }
        var events = ordered.map { MIDITrackEvent(ticks: $0.element.tick, $0.element.event) }
        events.append(MIDITrackEvent(ticks: max(endTick, events.last?.ticks ?? 0), .endOfTrack))
        return MIDITrack(events: events)
    }

    /// A channel message as a MIDI event, its values cut to their fields.
    static func event(_ message: ChannelMessage, channel: UInt8) -> MIDIEvent {
        func byte(_ value: Int) -> UInt8 { UInt8(min(127, max(0, value))) }
        switch message {
        case .controller(let number, let value):
            return .controlChange(channel: channel, controller: byte(number), value: byte(value))
        case .program(let program): return .programChange(channel: channel, program: byte(program))
        case .pitchWheel(let value): return .pitchBend(channel: channel, value: UInt16(min(16383, max(0, value))))
        case .channelPressure(let pressure): return .channelPressure(channel: channel, pressure: byte(pressure))
        }
    }
}
