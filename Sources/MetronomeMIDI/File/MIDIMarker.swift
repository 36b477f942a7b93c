import MetronomeModel

/// A marker meta event of a MIDI file placed on the file's tempo map: a label `--start-at` can name.
public struct MIDIMarker: Sendable, Hashable {
    /// Where it stands.
    public var position: Position
    /// Index of the track it came from, from 0.
    public var track: Int
    /// Its text, decoded as UTF-8 (invalid bytes become U+FFFD).
    public var name: String

    /// Creates a marker.
    public init(position: Position, track: Int, name: String) {
        self.position = position
        self.track = track
        self.name = name
    }
}
