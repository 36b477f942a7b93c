/// A Standard MIDI File (format 0 or 1) as values: read from bytes with `init(parsing:)`, written with `bytes()`,
/// and placed on the project's timeline with `timeline(sampleRate:)`. No file I/O: callers bring and take bytes.
///
/// For every file whose values are valid (`MIDIDivision`, `MIDIEvent`, `MIDITrack` say which), and so for every
/// file the reader returns, `try MIDIFile(parsing: file.bytes()) == file`.
public struct MIDIFile: Sendable, Hashable {
    /// How the tracks relate: format 0 or 1.
    public var format: MIDIFileFormat
    /// What a tick means.
    public var division: MIDIDivision
    /// The tracks in file order.
    public var tracks: [MIDITrack]

    /// Creates a file.
    public init(format: MIDIFileFormat, division: MIDIDivision, tracks: [MIDITrack]) {
        self.format = format
        self.division = division
        self.tracks = tracks
    }
}
