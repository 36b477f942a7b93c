import ArgumentParser
import MetronomeKit

/// `metronome chord "Cmaj7"`: plays one chord, all notes on one frame (or strummed by exact offsets).
struct Chord: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play one chord (\"Cmaj7\", \"Am/G\", \"C4+E4+G4\"), live or rendered with --output.",
        discussion: """
            The notes are committed together and start on the same frame; --strum MS spreads them low to high by \
            exact frame offsets. --duration is how long the chord is held (default 2 s); the file or the playback \
            lasts that plus the instrument's release. Each note plays at 1/√n of its velocity gain for an n-note \
            chord, and the master limiter keeps every sample below 1.0.
            """)

    @Argument(help: "The chord.")
    var chord: String

    @Option(parsing: .unconditional, help: "Milliseconds between successive notes, 0 to 1000.")
    var strum = "0"

    @OptionGroup var notes: NoteOptions
    @OptionGroup var output: OutputOptions
    /// Parsed only to be refused: a held chord has no beat, so the click's options (tempo, meter, accents,
    /// subdivision, count-in, bars, sound) would change nothing a listener hears, or (`--count-in`) sound over it.
    @OptionGroup(visibility: .hidden) var clickOptions: ClickOptions
    /// Parsed only to be refused: a held chord has no beat to swing, gap or speed up.
    @OptionGroup(visibility: .hidden) var section: SectionOptions
    @OptionGroup(title: "Live playback") var live: LiveOptions

    func run() throws {
        let chords = try NoteOptions.chords(chord)
        guard chords.count == 1 else {
            throw CommandLineError(.usage, "\(chord): give one chord (use 'metronome arp' for a progression)")
        }
        try section.refuse("does not apply to 'chord': a held chord has no beats to shape")
        let voicing = try notes.checked()
        guard let strumMilliseconds = Double(strum), strumMilliseconds.isFinite, (0...1000).contains(strumMilliseconds)
        else {
            throw CommandLineError.usage(option: "--strum", "\(strum): the strum must be 0 to 1000 milliseconds")
        }
        if let name = clickOptions.given.first {
            throw CommandLineError(
                .usage, "\(name) does not apply to 'chord': a held chord has no beat; it lasts --duration seconds")
        }
        var options = output
        let held = Double(output.duration ?? "2")
        guard let held, held.isFinite, held > 0, held <= 3600 else {
            throw CommandLineError.usage(
                option: "--duration", "\(output.duration!): the chord is held from 0 to 3600 seconds")
        }
        let track = try voicing.track(sampleRate: try output.checkedSampleRate())
        // A bank's longest release; a font's releases are its own: 2 s of tail, faded in its last 5 ms.
        let release = track.bank.map { $0.zones.map(\.release).max() ?? 0 } ?? MIDIRequest.tailSeconds
        options.duration = String(held + release + 0.05)
        var plan = try clickOptions.plan(options, silentClick: true)
        plan.polyphony = voicing.polyphony
        let rate = plan.sampleRate
        let notes = chords[0].notes(octave: voicing.octave, inversion: voicing.inversion)
        let offFrame = rate.frame(at: held)
        let strumFrames = strumMilliseconds * Double(rate.framesPerSecond) / 1000
        let events = notes.sorted().enumerated().map { index, note in
            NoteEvent(
                frame: SampleTime((Double(index) * strumFrames).rounded()), offFrame: offFrame, note: note,
                velocity: voicing.velocity, chordSize: notes.count)
        }
        // Unstrummed: one batch, one publication. Strummed: a batch per note, each on its own frame.
        let batches = strumFrames == 0 ? (events.isEmpty ? [] : [events]) : events.map { [$0] }
        plan.notes = { NotePlayer(tracks: [track], source: NoteBatches(batches), sampleRate: rate) }
        plan.parts = [MIDIExportPart(name: "Chord", program: voicing.midiProgram, source: NoteBatches(batches))]
        try Metronome.perform(plan, live: live)
    }
}
