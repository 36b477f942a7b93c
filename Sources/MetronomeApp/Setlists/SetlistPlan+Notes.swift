import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont

extension SetlistPlan {
    /// The set with every song's notes ready to play live, as `play` would play each file alone: a pattern's chord
    /// track through the instrument its file names (`instrument`, or its `instrument soundfont`; the built-in piano
    /// by default), a MIDI file's notes through the font MIDI files play through (`MIDIPlayback.font`, loaded once
    /// for the whole set, and only when a song is a MIDI file). `check` does not need them and leaves them out.
    /// - Parameters:
    ///   - soundfont: the font the MIDI files play through (`--soundfont`), or nil to look in `$METRONOME_SOUNDFONT`
    ///     and the system's.
    ///   - say: writes a whole line: that no font was found for the MIDI files (the built-in piano plays them).
    /// - Throws: `CommandLineError`: an instrument or a font that cannot be loaded, as `play` of the file says it.
    public func withNotes(soundfont: String? = nil, say: (String) -> Void) throws(CommandLineError) -> SetlistPlan {
        var set = self
        var midiFont: SoundFont??
        for index in set.songs.indices {
            var plan = set.songs[index].plan
            switch set.songs[index].request.source {
            case .midi(let playback, _):
                let voicing: Voicing
                do { voicing = try SettingForm([]).midiFileVoicing() } catch { throw CommandLineError(error) }
                if midiFont == nil { midiFont = .some(try MIDIPlayback.font(soundfont: soundfont, say: say)) }
                plan.polyphony = voicing.polyphony
                plan.notes = playback.notes(on: plan.map, font: midiFont ?? nil)
            case .pattern where PatternNotes.hasNotes(plan.map):
                var voicing: Voicing
                do { voicing = try SettingForm([]).voicing(fileInstrument: plan.instrument) } catch {
                    throw CommandLineError(error)
                }
                if voicing.font == nil, let reference = plan.soundFont { voicing.font = FontChoice(reference) }
                let track: NotePlayer.Track
                do { track = try voicing.track(sampleRate: plan.sampleRate) } catch { throw CommandLineError(error) }
                plan.playPatternNotes(track: track, voicing: voicing)
            default:
                continue
            }
            set.songs[index].plan = plan
        }
        return set
    }
}
