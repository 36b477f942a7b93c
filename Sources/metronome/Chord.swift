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
        let chords = try NoteOptions.chords(chord)
        guard chords.count == 1 else {
            throw CommandLineError(.usage, "\(chord): give one chord (use 'metronome arp' for a progression)")
        }
        try section.refuse("does not apply to 'chord': a held chord has no beats to shape")
        let voicing = try notes.checked()
        let strumMilliseconds = try parseOption("--strum", strum.text, SettingText.strum)
        if let name = clickOptions.form.given.first {
            throw CommandLineError(
                .usage, "\(name) does not apply to 'chord': a held chord has no beat; it lasts --duration seconds")
        }
        let held = try parseOption(
            "--duration", output.duration?.text ?? SettingDefault.heldDuration, SettingText.heldDuration)
        let track = try voicing.checkedTrack(sampleRate: try output.checkedSampleRate())
        // A bank's longest release; a font's releases are its own: 2 s of tail, faded in its last 5 ms.
        let release = track.bank.map { $0.zones.map(\.release).max() ?? 0 } ?? MIDIPlayback.tailSeconds
        var form = output.form
        form.set("--duration", String(held + release + 0.05))
        var job = try Job(clickOptions.form.merging(form), .click(silent: true))
        job.plan.midiInputTrack = track
        job.plan.title = "chord \(chord)"
        job.plan.playChord(
            chords[0], held: held, strumMilliseconds: strumMilliseconds, track: track, voicing: voicing)
        try Metronome.perform(job, live: live, jack: jack)
    }
}
