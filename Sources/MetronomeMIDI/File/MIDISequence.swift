import MetronomeModel

/// A MIDI file on the project's timeline (`MIDIFile.timeline(sampleRate:)`): the file's tempo map, its channel
/// messages in play order and its markers, every one at an exact `Position` of the map.
///
/// Play order: by position; events at the same position in track order, then in file order. The map is finite and
/// covers every event of the file, ending on the first bar line at or after the last one (an end of track or a
/// final note off may stand on the map's `endPosition`).
public struct MIDISequence: Sendable, Hashable {
    /// Tempo and meter of the whole file.
    public let tempoMap: TempoMap
    /// Every channel message, in play order.
    public let events: [MIDISequenceEvent]
    /// Every marker, in play order.
    public let markers: [MIDIMarker]

    /// Creates a sequence.
    public init(tempoMap: TempoMap, events: [MIDISequenceEvent], markers: [MIDIMarker]) {
        self.tempoMap = tempoMap
        self.events = events
        self.markers = markers
    }
}
