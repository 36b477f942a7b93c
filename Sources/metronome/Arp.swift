import ArgumentParser
import MetronomeKit

/// `metronome arp "C Am F G"`: arpeggiates a progression, one chord a bar, looping until stopped or `--bars`.
struct Arp: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Arpeggiate a chord progression (\"C Am F G\"), live or rendered with --output.",
        discussion: """
            Each chord lasts a bar (or --beats-per-chord beats) and the progression loops until Ctrl-C, --bars or \
            --duration. Styles: \(ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")). Chords: \
            \(ChordSymbol.qualities.map { "C" + $0.suffix }.joined(separator: " ")), the usual spellings (Cmaj, CM7, \
            C-7, Cø, C°, C+, …; docs/notes-and-midi.md), slash chords (C/E), sharps and flats (F#m7, Bb7), N.C. for a \
            silent chord, or explicit notes joined by + (C4+E4+G4, 60+64+67). --click plays the metronome along. --swing P swings the steps, 0 to \
            75 percent (50 = triplet feel), on 16ths for 1/16 and 1/32, else 8ths (16=P or 8=P chooses); the click \
            stays straight.
            """)

    @Argument(help: "The chords, separated by spaces (quote them); none with --midi-in.")
    var progression: String?
    @Flag(
        name: .customLong("midi-in"),
        help: """
            With --driver jack: arpeggiate the keys held on midi_in instead of a progression (new keys start on the \
            next step).
            """)
    var midiIn = false

    @Flag(help: "With --midi-in: the last keys go on after they are released, until new ones are pressed.")
    var latch = false
    @Option(help: .setting(Settings.Rate.self))
    var rate = SettingValue<Settings.Rate>(SettingDefault.rate)
    @Option(help: .setting(Settings.Style.self))
    var style = SettingValue<Settings.Style>(SettingDefault.style)
    @Option(parsing: .unconditional, help: .setting(Settings.Octaves.self))
    var octaves = SettingValue<Settings.Octaves>(SettingDefault.octaves)
    @Option(parsing: .unconditional, help: .setting(Settings.Gate.self))
    var gate = SettingValue<Settings.Gate>(SettingDefault.gate)
    @Option(name: .customLong("beats-per-chord"), parsing: .unconditional, help: .setting(Settings.BeatsPerChord.self))
    var beatsPerChord: SettingValue<Settings.BeatsPerChord>?
    @Option(parsing: .unconditional, help: .setting(Settings.Seed.self))
    var seed = SettingValue<Settings.Seed>(SettingDefault.seed)
    @Flag(help: "Play the metronome click along.")
    var click = false
    @OptionGroup(title: HelpSection.notes) var notes: NoteOptions
    @OptionGroup(title: HelpSection.click) var clickOptions: ClickOptions
    @OptionGroup var output: OutputOptions
    /// `--swing` (for the steps); `--gap` and `--trainer` are refused. The root command parses these options wherever
    /// they stand, so `arp` reads them here rather than declaring its own.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup var live: LiveOptions

    /// The rules between `arp`'s own options: the chords or `--midi-in`, and what `--midi-in` and `--latch` need.
    func validate() throws {
        try validating { () throws(CommandLineError) in try rules() }
    }

    private func rules() throws(CommandLineError) {
        if latch, !midiIn { throw CommandLineError(.usage, "--latch applies only with --midi-in") }
        if midiIn {
            guard progression == nil else {
                throw CommandLineError(.usage, "give chords or --midi-in, not both")
            }
            guard live.driver == "jack", output.output == nil else {
                throw CommandLineError(
                    .usage,
                    "--midi-in arpeggiates the keys held on JACK's midi_in: it needs --driver jack and no --output")
            }
        } else if progression == nil {
            throw CommandLineError(
                .usage, "give the chords to arpeggiate (\"C Am F G\"), or --midi-in with --driver jack")
        }
    }

    mutating func run() throws {
        let jack = try live.adopting(&output)
        if let name = section.form.given.first(where: { $0 != "--swing" }) {
            throw CommandLineError(
                .usage,
                "\(name) does not apply to 'arp'; write the chords in a .metro file with '\(name.dropFirst(2))' and "
                    + "play it")
        }
        let chords = try midiIn ? [] : NoteOptions.chords(progression ?? "")
        let voicing = try notes.checked()
        let form = SettingForm([
            entry(style), entry(rate), entry(octaves), entry(gate),
            entry(beatsPerChord), entry(seed),
        ])
        let settings: ArpeggioSettings
        do { settings = try form.merging(section.form).arpeggio(voicing: voicing) } catch {
            throw CommandLineError(error)
        }
        var job = try Job(clickOptions.form.merging(output.form), .click(silent: !click))
        let track = try voicing.checkedTrack(sampleRate: job.plan.sampleRate)
        job.plan.midiInputTrack = track
        job.plan.title = midiIn ? "arp --midi-in" : "arp \(progression ?? "")"
        if midiIn {
            job.plan.midiInputArpeggio = (settings, latch)
        } else {
            job.plan.playArpeggio(chords, settings: settings, track: track, voicing: voicing)
        }
        try Metronome.perform(job, live: live, jack: jack)
    }
}
