import MetronomeModel

/// A channel message of a MIDI file placed on the file's tempo map.
public struct MIDISequenceEvent: Sendable, Hashable {
    /// Where it plays.
    public var position: Position
    /// Index of the track (MTrk chunk) it came from, from 0.
    public var track: Int
    /// Its channel, 0...15 (9 is General MIDI's drum channel, "channel 10").
    public var channel: UInt8
    /// The message: a note, controller, program, pressure or pitch-bend event.
    public var event: MIDIEvent

    /// Creates an event.
    public init(position: Position, track: Int, channel: UInt8, event: MIDIEvent) {
        self.position = position
        self.track = track
        self.channel = channel
        self.event = event
    }
}
