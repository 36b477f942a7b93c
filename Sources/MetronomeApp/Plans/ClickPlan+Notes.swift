import MetronomeEngine
import MetronomeMIDI
import MetronomeModel
import MetronomeMusic

/// Notes played with the click: a pattern's note track, an arpeggio, a held chord. Each sets the plan's `notes`
/// (made when playing starts), its `parts` (the same notes in a MIDI export) and its SoundFont polyphony.
extension ClickPlan {
    /// Plays the map's note tracks (a pattern's `chords` lines, arpeggiated or not) with the voicing's defaults.
    /// - Parameters:
    ///   - track: the instrument (`Voicing.track`), made for the plan's rate.
    ///   - voicing: the octave, inversion and velocity the tracks default to; its polyphony and MIDI program.
    public mutating func playPatternNotes(track: NotePlayer.Track, voicing: Voicing) {
        var defaults = ArpeggioSettings()
        defaults.octave = voicing.octave
        defaults.inversion = voicing.inversion
        defaults.velocity = voicing.velocity
        let (map, settings) = (self.map, defaults)
        setNotes(named: "Notes", track: track, voicing: voicing) { PatternNotes(map: map, defaults: settings) }
    }

    /// Plays an arpeggio of a chord progression over the plan's map.
    /// - Parameters:
    ///   - chords: the progression, each chord for `settings.chordBeats` beats (or a bar).
    ///   - settings: order, rate, octaves, gate, swing, seed, voicing.
    ///   - track: the instrument, made for the plan's rate.
    ///   - voicing: its polyphony and MIDI program.
    public mutating func playArpeggio(
        _ chords: [ChordSymbol], settings: ArpeggioSettings, track: NotePlayer.Track, voicing: Voicing
    ) {
        let map = self.map
        setNotes(named: "Arpeggio", track: track, voicing: voicing) {
            ArpeggioSequence(chords: chords, settings: settings, map: map)
        }
    }

    /// Plays one chord from frame 0, held for `held` seconds: unstrummed, one batch committed as one publication (all
    /// notes on one frame, gain-safe); strummed, lowest note first, a note every `strumMilliseconds`.
    /// - Parameters:
    ///   - chord: the chord.
    ///   - held: seconds until every note is released.
    ///   - strumMilliseconds: milliseconds between the notes (0: together).
    ///   - track: the instrument, made for the plan's rate.
    ///   - voicing: octave, inversion, velocity; its polyphony and MIDI program.
    public mutating func playChord(
        _ chord: ChordSymbol, held: Double, strumMilliseconds: Double, track: NotePlayer.Track, voicing: Voicing
    ) {
        let rate = sampleRate
        let notes = chord.notes(octave: voicing.octave, inversion: voicing.inversion)
        let offFrame = rate.frame(at: held)
        let strumFrames = strumMilliseconds * Double(rate.framesPerSecond) / 1000
        let events = notes.sorted().enumerated().map { index, note in
            NoteEvent(
                frame: SampleTime((Double(index) * strumFrames).rounded()), offFrame: offFrame, note: note,
                velocity: voicing.velocity, chordSize: notes.count)
        }
        let batches = strumFrames == 0 ? (events.isEmpty ? [] : [events]) : events.map { [$0] }
        setNotes(named: "Chord", track: track, voicing: voicing) { NoteBatches(batches) }
    }

    /// Sets the notes from a source made anew for playing and for the export.
    private mutating func setNotes<Source: NoteSource>(
        named name: String, track: NotePlayer.Track, voicing: Voicing,
        source: @escaping @Sendable () -> Source
    ) {
        let rate = map.sampleRate
        polyphony = voicing.polyphony
        notes = { NotePlayer(tracks: [track], source: source(), sampleRate: rate) }
        parts = [MIDIExportPart(name: name, program: voicing.midiProgram, source: source())]
    }
}
