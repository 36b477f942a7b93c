import ArgumentParser
import MetronomeHub
import MetronomeJack
import MetronomeKit

/// `metronome play FILE-or-NAME`: plays a pattern file live, or renders it with `--output`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a pattern file (.metro, or a klick tempo map), a shipped pattern by name, or a setlist.",
        discussion: """
            Plays live until the pattern ends (or Ctrl-C), or renders it with --output (an endless pattern needs \
            --bars or --duration). --bars N stops after N bars, --duration after that many seconds. \
            --bpm B replaces every constant tempo with B; a ramp starts from B and keeps its proportion (100-140 \
            becomes B-1.4B); a trainer starts from B with its step, and its limit keeps its distance. \
            --tempo-scale F multiplies every tempo instead. --subdivide replaces every section's subdivision and \
            --count-in the file's count-in; the file keeps its meters and accents. See 'metronome patterns'. \
            A setlist (FILE.setlist) plays its songs live, each with the settings the file gives: n the next song, \
            b the one before, r the same again, a number and Enter that song (docs/setlists.md).
            """)

    @Argument(help: "A pattern file, or the name of a shipped pattern (see 'metronome patterns').")
    var file: String
    @Option(name: .customLong("start-at"), help: .setting(Settings.StartAt.self))
    var startAt: SettingValue<Settings.StartAt>?
    @Option(name: .customLong("tempo-scale"), parsing: .unconditional, help: .setting(Settings.TempoScale.self))
    var tempoScale: SettingValue<Settings.TempoScale>?
    @Flag(name: .customLong("click"), help: "MIDI files: play the metronome along on the file's tempo map and meters.")
    var withClick = false
    @Option(help: .setting(Settings.Mute.self))
    var mute: SettingValue<Settings.Mute>?
    @Option(help: .setting(Settings.Solo.self))
    var solo: SettingValue<Settings.Solo>?
    @Option(parsing: .unconditional, help: .setting(Settings.Transpose.self))
    var transpose: SettingValue<Settings.Transpose>?
    @OptionGroup(title: HelpSection.click) var tempo: TempoOptions
    /// Parsed only to be refused with a message: a file sets its meters and accents.
    @OptionGroup(visibility: .hidden) var bar: BarOptions
    @OptionGroup(title: HelpSection.click) var beat: BeatOptions
    @OptionGroup(title: HelpSection.click) var length: LengthOptions
    @OptionGroup(title: HelpSection.click) var sound: SoundOptions
    @OptionGroup var output: OutputOptions
    /// Parsed only to be refused with a message: the file sets its sections' swing, gap and trainers.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup(title: "Note track (files with chords)") var notes: NoteOptions
    @OptionGroup var live: LiveOptions

    /// The click's, the output's and the section's options, and `--tempo-scale`.
    private var form: SettingForm {
        ClickOptions.form(tempo, bar, beat, length, sound).merging(output.form).merging(section.form)
            .merging(SettingForm([entry(tempoScale)]))
    }

    /// The MIDI file's options (`SettingForm.configure`).
    private var midiForm: SettingForm {
        SettingForm([
            entry(startAt), SettingForm.flag("--click", withClick), entry(mute), entry(solo),
            entry(transpose),
        ])
    }

    /// A set's mistakes, before a JACK client is opened (64 with no server too).
    func validate() throws {
        guard Setlist.isSetlist(path: file) else { return }
        // `play gig.setlist`: every song's settings are in the file, and the set plays live.
        try validating { () throws(CommandLineError) in
            let defaults = (try? NoteOptions.parse([]))?.form ?? SettingForm([])
            do throws(SettingError) {
                try form.merging(midiForm).merging(notes.form).refuseForSetlist(defaults: defaults)
            } catch {
                throw CommandLineError(error)
            }
            if let refusal = LiveCommand.refusal(setlist: true, live: try live.checked(rendering: false)) {
                throw refusal
            }
        }
    }

    mutating func run() throws {
        let jack = try live.adopting(&output)
        if Setlist.isSetlist(path: file) { return try runSetlist(jack: jack) }
        if MIDIPlayback.isMIDI(path: file) { return try runMIDI(jack: jack) }
        do { try midiForm.refuseMIDIFileSettings() } catch { throw CommandLineError(error) }
        var job = try Job(form, patternSource(named: file, startAt: startAt?.text))
        if PatternNotes.hasNotes(job.plan.map) {
            var voicing = try notes.checked(fileInstrument: job.plan.instrument)
            // The file's `instrument soundfont` unless the command line chooses an instrument.
            if voicing.font == nil, notes.instrument == nil, notes.bank == nil, let reference = job.plan.soundFont {
                voicing.font = FontChoice(reference)
            }
            let track = try voicing.checkedTrack(sampleRate: job.plan.sampleRate)
            job.plan.playPatternNotes(track: track, voicing: voicing)
        }
        try Metronome.perform(job, live: live, jack: jack)
    }

    private func runSetlist(jack: JackClient?) throws(CommandLineError) {
        let checked: SetlistPlan
        let rate = try output.checkedSampleRate()
        do { checked = try SetlistDocument(path: file).plan(sampleRate: rate) } catch {
            throw CommandLineError(error)
        }
        let plan = try checked.withNotes(soundfont: notes.soundfont?.text) { FileOutput.standardError.write($0) }
        let settings = try live.checked(rendering: false)
        let job = Job(plan: plan.songs[0].plan, output: nil, quiet: output.form.has("--quiet"))
        try ClickLive(job: job, live: settings, jackClient: jack, setlist: plan).run()
    }

    /// `play FILE.mid`: the file through a SoundFont (`--soundfont`, `$METRONOME_SOUNDFONT`, the system's General
    /// MIDI font) or, with none, the built-in piano (drums silent) with a note saying so; the click along with
    /// `--click`.
    private func runMIDI(jack: JackClient?) throws(CommandLineError) {
        let voicing: Voicing
        do { voicing = try notes.form.midiFileVoicing() } catch { throw CommandLineError(error) }
        let playback = try MIDIPlayback.checked(
            path: file, form: midiForm, sampleRate: try output.checkedSampleRate())
        var job = try Job(form, .midi(playback))
        if let target = job.output, target.audio == nil {
            throw CommandLineError(
                .usage,
                "--output \(target.path): \(file) is already a MIDI file; render it to audio (.wav, .flac, .ogg, "
                    + ".aiff), or export a pattern, an arpeggio or the click to MIDI")
        }
        job.plan.polyphony = voicing.polyphony
        job.plan.notes = try playback.notes(on: job.plan.map, soundfont: notes.soundfont?.text) {
            FileOutput.standardError.write($0)
        }
        try Metronome.perform(job, live: live, jack: jack)
    }
}
