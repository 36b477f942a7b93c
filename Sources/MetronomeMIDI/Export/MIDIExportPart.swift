import MetronomeModel
import MetronomeMusic

/// A note track of a MIDI export (`MIDIExport`): the notes a source places on the export's map, the track's name
/// and the General MIDI program its channel starts with.
public struct MIDIExportPart: Sendable {
    /// The track name written at tick 0.
    public var name: String
    /// The program change written at tick 0, 0...127 (`program(for:)` for the built-in instruments).
    public var program: UInt8
    /// The notes (and channel messages), read from the start of the map.
    public var source: any NoteSource

    /// Creates a part.
    public init(name: String, program: UInt8, source: any NoteSource) {
        self.name = name
        self.program = program
        self.source = source
    }

    /// The General MIDI program closest to a built-in instrument: the piano is 0 (Acoustic Grand Piano), the organ
    /// 16 (Drawbar Organ).
    public static func program(for instrument: BuiltInInstrument) -> UInt8 {
        switch instrument {
        case .piano: 0
        case .organ: 16
        }
    }
}
