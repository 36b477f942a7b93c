import MetronomeFiles
import MetronomeKit

/// `play FILE.mid`'s options turned into the library's `MIDIPlayback`.
extension MIDIPlayback {
    /// Reads and places the file (missing 66; malformed 65 with the byte offset), then applies `form`'s MIDI
    /// options (`SettingForm.configure`).
    static func checked(path: String, form: SettingForm, sampleRate: SampleRate) throws(CommandLineError)
        -> MIDIPlayback
    {
        var playback: MIDIPlayback
        do { playback = try MIDIPlayback(path: path, sampleRate: sampleRate) } catch { throw CommandLineError(error) }
        do { try form.configure(&playback) } catch { throw CommandLineError(error) }
        return playback
    }

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
