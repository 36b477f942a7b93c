import MetronomeFiles
import MetronomeKit

/// `play FILE.mid`'s options turned into the library's `MIDIPlayback`.
extension MIDIPlayback {
    /// Reads and places the file (missing 66; malformed 65 with the byte offset), then checks `--mute`, `--solo`
    /// and `--transpose`.
    static func checked(
        path: String, startAt: String?, click: Bool, mute: String?, solo: String?, transpose: String?,
        sampleRate: SampleRate
    ) throws(CommandLineError) -> MIDIPlayback {
        var playback: MIDIPlayback
        do { playback = try MIDIPlayback(path: path, sampleRate: sampleRate) } catch { throw CommandLineError(error) }
        playback.click = click
        playback.startAt = startAt
        playback.muted = try parseOption("--mute", mute, SettingText.midiChannels) ?? []
        playback.soloed = try parseOption("--solo", solo, SettingText.midiChannels) ?? []
        playback.transpose = try parseOption("--transpose", transpose, SettingText.transposition) ?? 0
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
