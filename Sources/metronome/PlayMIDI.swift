import MetronomeFiles
import MetronomeKit

/// A MIDI file's notes for `play FILE.mid` and `serve FILE.mid`, with the line the command prints without a font.
extension MIDIPlayback {
    /// The note player of the file on `map`: through the font `FontChoice.forMIDIFile` finds (missing 66, malformed
    /// 65), or the built-in piano, drums silent, with a note on stderr saying so.
    func notes(on map: TempoMap, soundfont: String?) throws(CommandLineError) -> @Sendable () -> NotePlayer {
        guard let choice = FontChoice.forMIDIFile(given: soundfont) else {
            FileOutput.standardError.write(
                "metronome: no SoundFont (--soundfont, $METRONOME_SOUNDFONT or \(FontChoice.systemFont)); "
                    + "playing the built-in piano, drums silent\n")
            return notes(on: map, font: nil)
        }
        let origin: String
        switch choice.origin {
        case .given: origin = "--soundfont"
        case .environment: origin = "$METRONOME_SOUNDFONT"
        case .system: origin = "the system's General MIDI font"
        }
        do {
            return notes(on: map, font: try FontChoice(path: choice.path).load())
        } catch {
            throw CommandLineError(error, origin: origin)
        }
    }
}
