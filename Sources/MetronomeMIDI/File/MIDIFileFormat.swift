/// The arrangement of a Standard MIDI File's tracks (the header's format field). Format 2 (independent sequences)
/// is not supported: reading one throws.
public enum MIDIFileFormat: UInt16, Sendable, Hashable {
    /// Format 0: one track holding every channel.
    case singleTrack = 0
    /// Format 1: tracks played together from the same start; the first usually holds the tempo map.
    case simultaneousTracks = 1
}
