import ArgumentParser
import MetronomeKit

/// `metronome chord "Cmaj7"`: plays one chord, all notes on one frame (or strummed by exact offsets).
struct Chord: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play one chord (\"Cmaj7\", \"Am/G\", \"C4+E4+G4\"), live or rendered with --output.",
        discussion: """
            The notes are committed together and start on the same frame; --strum MS spreads them low to high by \
            exact frame offsets. --duration is how long the chord is held (default \(SettingDefault.heldDuration) s); the file or the playback \
            lasts that plus the instrument's release. Each note plays at 1/√n of its velocity gain for an n-note \
            chord, and the master limiter keeps every sample below 1.0.
            """)

    @Argument(help: "The chord.")
    var chord: String
    @Option(parsing: .unconditional, help: .setting(Settings.Strum.self))
    var strum = SettingValue<Settings.Strum>(SettingDefault.strum)
    @OptionGroup(title: HelpSection.notes) var notes: NoteOptions
    @OptionGroup var output: OutputOptions
    /// Parsed only to be refused: a held chord has no beat, so the click's options (tempo, meter, accents,
    /// subdivision, count-in, bars, sound) would change nothing a listener hears, or (`--count-in`) sound over it.
    @OptionGroup(visibility: .hidden) var clickOptions: ClickOptions
    /// Parsed only to be refused: a held chord has no beat to swing, gap or speed up.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup var live: LiveOptions

    mutating func run() throws {
        let jack = try live.adopting(&output)
        let command = ChordCommand(
            chord: chord, strum: strum.text, notes: notes.form, click: clickOptions.form, section: section.form,
            output: output.form)
        let (plan, target) = try command.plan()
        let job = Job(plan: plan, output: target, quiet: output.quiet, force: output.form.has("--force"))
        try Metronome.perform(job, live: live, jack: jack)
    }
}
