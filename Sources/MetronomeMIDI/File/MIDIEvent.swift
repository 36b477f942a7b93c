/// One event of a Standard MIDI File track: a channel message or a meta event the player uses.
///
/// Fields hold the file's raw numbers, so a file reads back exactly as written: channels 0...15, keys, velocities,
/// controller numbers and values 0...127, pitch bend 0...16383 (8192 is the centre). A note on with velocity 0 is kept
/// as written; it means a note off (`isNoteOff`). Text is kept as bytes (files use UTF-8, Latin-1 and others); `text`
/// decodes it for display.
public enum MIDIEvent: Sendable, Hashable {
    /// 8n: a key released, with its release velocity.
    case noteOff(channel: UInt8, key: UInt8, velocity: UInt8)
    /// 9n: a key pressed (velocity 0 releases it).
    case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
    /// An: polyphonic key pressure.
    case polyPressure(channel: UInt8, key: UInt8, pressure: UInt8)
    /// Bn: a control change (channel mode messages 120...127 included).
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    /// Cn: a program change.
    case programChange(channel: UInt8, program: UInt8)
    /// Dn: channel pressure (aftertouch).
    case channelPressure(channel: UInt8, pressure: UInt8)
    /// En: pitch bend, 0...16383, 8192 the centre.
    case pitchBend(channel: UInt8, value: UInt16)
    /// FF 51: the tempo from here on, in microseconds per quarter note (24 bits).
    case tempo(microsecondsPerQuarter: UInt32)
    /// FF 58: a time signature `numerator / 2^denominatorPower`, MIDI clocks per metronome click and notated
    /// 32nd notes per MIDI quarter note (24 clocks).
    case timeSignature(numerator: UInt8, denominatorPower: UInt8, clocksPerClick: UInt8, thirtySecondsPerQuarter: UInt8)
    /// FF 59: a key signature, −7 (seven flats) ... 7 (seven sharps), major or minor.
    case keySignature(sharps: Int8, minor: Bool)
    /// FF 01...09: text of a kind.
    case text(MIDITextKind, [UInt8])
    /// FF 2F: the end of the track; a track's last event.
    case endOfTrack

    /// The channel (0...15) of a channel message, nil for a meta event.
    public var channel: UInt8? {
        switch self {
        case .noteOff(let channel, _, _), .noteOn(let channel, _, _), .polyPressure(let channel, _, _),
            .controlChange(let channel, _, _), .programChange(let channel, _), .channelPressure(let channel, _),
            .pitchBend(let channel, _):
            return channel
        case .tempo, .timeSignature, .keySignature, .text, .endOfTrack:
            return nil
        }
    }

    /// Whether the event releases a key: a note off, or a note on with velocity 0.
    public var isNoteOff: Bool {
        switch self {
        case .noteOff: return true
        case .noteOn(_, _, let velocity): return velocity == 0
        default: return false
        }
    }

    /// The text of a text event decoded as UTF-8 (invalid bytes become U+FFFD), nil for other events.
    public var text: String? {
        guard case .text(_, let bytes) = self else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
