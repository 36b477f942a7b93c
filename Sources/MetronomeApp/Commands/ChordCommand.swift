import MetronomeEngine
import MetronomeModel
import MetronomeMusic

/// `metronome chord CHORD`: one chord through the notes' instrument, all its notes on one frame (or strummed by
/// exact offsets), held `--duration` seconds (`SettingDefault.heldDuration`), the plan lasting its release too. A
/// held chord has no beat, so the click's and a section's settings are refused.
public struct ChordCommand {
    /// The chord as given (`Cmaj7`, `Am/G`, `C4+E4+G4`).
    public var chord: String
    /// `--strum`: milliseconds between successive notes.
    public var strum: String
    /// The notes' settings (`voicing`).
    public var notes: SettingForm
    /// The click's settings, refused.
    public var click: SettingForm
    /// A section's settings (`--swing`, `--gap`, `--trainer`), refused.
    public var section: SettingForm
    /// The output's settings (`--duration` is how long the chord is held).
    public var output: SettingForm

    /// A command from the settings as given.
    public init(
        chord: String, strum: String, notes: SettingForm, click: SettingForm, section: SettingForm,
        output: SettingForm
    ) {
        (self.chord, self.strum, self.notes, self.click, self.section, self.output) =
            (chord, strum, notes, click, section, output)
    }

    /// The plan, checked in this order: the chord (one), the section's settings, the voicing, the strum, the
    /// click's settings, how long it is held, the instrument (a font or bank file missing 66, malformed 65).
    /// - Throws: `CommandLineError`: 64 for a setting, else as the instrument's file.
    public func plan() throws(CommandLineError) -> (plan: ClickPlan, output: OutputPlan?) {
        let chords: [ChordSymbol]
        do { chords = try ChordSymbol.progression(chord) } catch { throw CommandLineError(.usage, error.description) }
        guard chords.count == 1 else {
            throw CommandLineError(.usage, "\(chord): give one chord (use 'metronome arp' for a progression)")
        }
        if let name = section.given.first {
            throw CommandLineError(.usage, "\(name) does not apply to 'chord': a held chord has no beats to shape")
        }
        let voicing: Voicing
        let strumMilliseconds: Double
        do {
            voicing = try notes.voicing()
            strumMilliseconds = try SettingForm.parse("--strum", strum, SettingText.strum)
        } catch { throw CommandLineError(error) }
        if let name = click.given.first {
            throw CommandLineError(
                .usage, "\(name) does not apply to 'chord': a held chord has no beat; it lasts --duration seconds")
        }
        let held: Double
        let rate: SampleRate
        do {
            held = try output.value("--duration", default: SettingDefault.heldDuration, SettingText.heldDuration)
            rate = try output.sampleRate()
        } catch { throw CommandLineError(error) }
        let track: NotePlayer.Track
        do { track = try voicing.track(sampleRate: rate) } catch { throw CommandLineError(error) }
        // A bank's longest release; a font's releases are its own: 2 s of tail, faded in its last 5 ms.
        let release = track.bank.map { $0.zones.map(\.release).max() ?? 0 } ?? MIDIPlayback.tailSeconds
        var length = output
        length.set("--duration", String(held + release + 0.05))
        var (plan, target) = try click.merging(length).clickPlan(.click(silent: true))
        plan.midiInputTrack = track
        plan.title = "chord \(chord)"
        plan.playChord(chords[0], held: held, strumMilliseconds: strumMilliseconds, track: track, voicing: voicing)
        return (plan, target)
    }
}
