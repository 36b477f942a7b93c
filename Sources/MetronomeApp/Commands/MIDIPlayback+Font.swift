import MetronomeEngine
import MetronomeModel
import MetronomeSoundFont

/// A MIDI file's notes for `play FILE.mid` and `serve FILE.mid`, through the font the command line and the
/// environment choose, with the line a command says when there is none.
extension MIDIPlayback {
    /// The note player of the file on `map`: through the font `FontChoice.forMIDIFile` finds, or with none the
    /// built-in piano, drums silent, with a line saying so.
    /// - Parameters:
    ///   - map: the map played (`map(sampleRate:…)`).
    ///   - soundfont: the font given (`--soundfont`), or nil to look in `$METRONOME_SOUNDFONT` and the system's.
    ///   - say: writes the whole line (ending in a newline) that no font was found: standard error for the CLI.
    /// - Returns: the note player, made when playing starts.
    /// - Throws: `CommandLineError`: the font missing (66) or malformed (65), the message naming what chose it
    ///   (`--soundfont`, `$METRONOME_SOUNDFONT` or the system's General MIDI font).
    public func notes(on map: TempoMap, soundfont: String?, say: (String) -> Void) throws(CommandLineError)
        -> @Sendable () -> NotePlayer
    {
        notes(on: map, font: try Self.font(soundfont: soundfont, say: say))
    }

    /// The font MIDI files play through (`FontChoice.forMIDIFile`), loaded; nil, after the line saying so, when there
    /// is none (the built-in piano plays, drums silent).
    /// - Parameters:
    ///   - soundfont: the font given (`--soundfont`), or nil to look in `$METRONOME_SOUNDFONT` and the system's.
    ///   - say: writes the whole line that no font was found.
    /// - Throws: `CommandLineError`: the font missing (66) or malformed (65), naming what chose it.
    public static func font(soundfont: String?, say: (String) -> Void) throws(CommandLineError) -> SoundFont? {
        guard let choice = FontChoice.forMIDIFile(given: soundfont) else {
            say(
                "metronome: no SoundFont (--soundfont, $METRONOME_SOUNDFONT or \(FontChoice.systemFont)); "
                    + "playing the built-in piano, drums silent\n")
            return nil
        }
        let origin: String
        switch choice.origin {
        case .given: origin = "--soundfont"
        case .environment: origin = "$METRONOME_SOUNDFONT"
        case .system: origin = "the system's General MIDI font"
        }
        do {
            return try FontChoice(path: choice.path).load()
        } catch {
            throw CommandLineError(error, origin: origin)
        }
    }
}
