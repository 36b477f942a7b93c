import ArgumentParser
import MetronomeKit

/// `metronome check FILE`: validates a tempo-map file and prints its expanded timeline, as `play` with the same
/// options would play it; or validates a setlist (`.setlist`) and prints its songs.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Validate a pattern file and print its expanded sections: start bar, start time, meter, tempo, and the "
            + "total.",
        discussion: """
            Takes play's --bpm, --tempo-scale, --start-at, --count-in and --subdivide and prints what play does with \
            them: 'metronome check song --bpm 100' shows the timeline 'metronome play song --bpm 100' plays. The \
            other options of play do not change the timeline and are refused. A setlist (FILE.setlist) is checked \
            song by song and its songs printed; it takes no options (each song's settings are in the file).
            """)

    @Argument(help: "A pattern file (.metro or a klick tempo map), the name of a shipped pattern, or a setlist.")
    var file: String
    @Option(
        name: .customLong("start-at"),
        help: "Start at this label (of a section or a repeat) or bar number (from 1), as play does.")
    var startAt: SettingValue<Settings.StartAt>?

    @Option(
        name: .customLong("tempo-scale"), parsing: .unconditional,
        help: "Multiply every tempo by this factor, 0.1 to 10, as play does.")
    var tempoScale: SettingValue<Settings.TempoScale>?

    /// `--bpm`, `--count-in` and `--subdivide` apply as in `play`; the rest of the main command's options are
    /// refused.
    @OptionGroup(title: "The timeline's options, as play takes them") var tempo: TempoOptions
    @OptionGroup(title: "The timeline's options, as play takes them") var beat: BeatOptions
    @OptionGroup(visibility: .hidden) var bar: BarOptions
    @OptionGroup(visibility: .hidden) var length: LengthOptions
    @OptionGroup(visibility: .hidden) var sound: SoundOptions
    @OptionGroup(visibility: .hidden) var output: OutputOptions
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup(visibility: .hidden) var live: LiveOptions

    /// The options `check` does not take, refused (`SettingForm.refuseInCheck`).
    func validate() throws {
        try validating { () throws(CommandLineError) in
            let given = form.merging(SettingForm([entry(startAt), entry(tempoScale)]))
            do throws(SettingError) { try given.refuseInCheck(setlist: Setlist.isSetlist(path: file)) } catch {
                throw CommandLineError(error)
            }
        }
    }

    /// The main command's options `check` parses.
    private var form: SettingForm {
        ClickOptions.form(tempo, bar, beat, length, sound).merging(output.form).merging(section.form)
            .merging(live.form)
    }

    func run() throws {
        if Setlist.isSetlist(path: file) {
            do { print(SetlistTable.text(of: try SetlistDocument(path: file).plan())) } catch {
                throw CommandLineError(error)
            }
            return
        }
        // play's own path, so the table is what play plays.
        let timeline = form.merging(SettingForm([entry(tempoScale)]))
        print(TimelineTable.text(of: try Job(timeline, patternSource(named: file, startAt: startAt?.text)).plan.map))
    }
}
