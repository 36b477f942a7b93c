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
            C-7, Cø, C°, C+, …; see the README), slash chords (C/E), sharps and flats (F#m7, Bb7), N.C. for a \
            silent chord, or explicit notes joined by + (C4+E4+G4, 60+64+67). --click plays the metronome along. --swing P swings the steps, 0 to \
            75 percent (50 = triplet feel), on 16ths for 1/16 and 1/32, else 8ths (16=P or 8=P chooses); the click \
            stays straight.
            """)

    @Argument(help: "The chords, separated by spaces (quote them).")
    var progression: String

    @Option(help: "Step length: 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32.")
    var rate = "1/16"

    @Option(help: "Note order (see above).")
    var style = "up"

    @Option(parsing: .unconditional, help: "Octaves the chord spreads over, 1 to 4.")
    var octaves = "1"

    @Option(parsing: .unconditional, help: "Fraction of each step a note sounds, 0.05 to 1.")
    var gate = "0.8"

    @Option(
        name: .customLong("beats-per-chord"), parsing: .unconditional,
        help: "Beats each chord lasts (default: one bar).")
    var beatsPerChord: String?

    @Option(parsing: .unconditional, help: "Seed of the random styles.")
    var seed = "1"

    @Flag(help: "Play the metronome click along.")
    var click = false

    @OptionGroup var notes: NoteOptions
    @OptionGroup var clickOptions: ClickOptions
    @OptionGroup var output: OutputOptions
    /// `--swing` (for the steps); `--gap` and `--trainer` are refused. The root command parses these options wherever
    /// they stand, so `arp` reads them here rather than declaring its own.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup(title: "Live playback") var live: LiveOptions

    func run() throws {
        if let (name, _) = section.given.first(where: { $0.name != "--swing" }) {
            throw CommandLineError(
                .usage,
                "\(name) does not apply to 'arp'; write the chords in a .metro file with '\(name.dropFirst(2))' and "
                    + "play it")
        }
        let chords = try NoteOptions.chords(progression)
        let voicing = try notes.checked()
        var settings = ArpeggioSettings()
        guard let order = ArpeggioOrder(rawValue: style) else {
            let names = ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandLineError.usage(option: "--style", "\(style): unknown style; choose one of \(names)")
        }
        settings.order = order
        guard let stepRate = StepRate(rawValue: rate) else {
            throw CommandLineError.usage(
                option: "--rate", "\(rate): the rate must be 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32")
        }
        settings.rate = stepRate
        guard let octaveCount = Int(octaves), (1...4).contains(octaveCount) else {
            throw CommandLineError.usage(option: "--octaves", "\(octaves): octaves must be a whole number from 1 to 4")
        }
        settings.octaves = octaveCount
        guard let gateValue = Double(gate), ArpeggioSettings.gateRange.contains(gateValue) else {
            throw CommandLineError.usage(option: "--gate", "\(gate): the gate must be a number from 0.05 to 1")
        }
        settings.gate = gateValue
        if let swing = section.swing {
            guard stepRate != .eighthTriplet, stepRate != .sixteenthTriplet else {
                throw CommandLineError.usage(
                    option: "--swing", "\(swing): swing applies to straight rates, not \(rate)")
            }
            settings.swing = try section.checkedSwing(
                defaultNote: stepRate == .sixteenth || stepRate == .thirtySecond ? 16 : 8)
        }
        if let beatsPerChord {
            guard let beats = Int(beatsPerChord), (1...64).contains(beats) else {
                throw CommandLineError.usage(
                    option: "--beats-per-chord", "\(beatsPerChord): beats per chord must be a whole number from 1 to 64"
                )
            }
            settings.chordBeats = beats
        }
        guard let seedValue = UInt64(seed) else {
            throw CommandLineError.usage(option: "--seed", "\(seed): the seed must be a whole number from 0")
        }
        settings.seed = seedValue
        settings.octave = voicing.octave
        settings.velocity = voicing.velocity
        settings.inversion = voicing.inversion
        var plan = try clickOptions.plan(output, silentClick: !click)
        let map = plan.map
        let track = try voicing.track(sampleRate: plan.sampleRate)
        plan.polyphony = voicing.polyphony
        let fixed = settings
        plan.notes = {
            NotePlayer(
                tracks: [track],
                source: ArpeggioSequence(chords: chords, settings: fixed, map: map),
                sampleRate: map.sampleRate)
        }
        let source = ArpeggioSequence(chords: chords, settings: fixed, map: map)
        plan.parts = [MIDIExportPart(name: "Arpeggio", program: voicing.midiProgram, source: source)]
        try Metronome.perform(plan, live: live)
    }
}
