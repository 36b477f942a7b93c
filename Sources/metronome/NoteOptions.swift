import ArgumentParser
import MetronomeFiles
import MetronomeKit

/// Options shared by `arp` and `chord`: the instrument, the voicing and the velocity.
struct NoteOptions: ParsableArguments {
    @Option(help: "Built-in instrument: piano or organ (see 'metronome sounds'; default piano).")
    var instrument: String?

    @Option(
        help: """
            A sound bank instead of a built-in instrument: our .bank file or a SoundBankPlayer .plist; with \
            --soundfont, the preset's bank number instead (0 to 128; 128 holds drum kits).
            """)
    var bank: String?

    @Option(help: "Play the notes with this SoundFont (.sf2 or .sf3) instead of a built-in instrument.")
    var soundfont: String?

    @Option(parsing: .unconditional, help: "The SoundFont preset's program, 0 to 127 (with --soundfont; default 0).")
    var program: String?

    @Option(
        parsing: .unconditional, help: "SoundFont voices that may sound at once, 1 to 4096 (default 256).")
    var polyphony: String?

    @Option(parsing: .unconditional, help: "Octave of the chord roots, 0 to 8 (C4 is middle C).")
    var octave = "4"

    @Option(parsing: .unconditional, help: "Inversion: move the lowest note up an octave this many times, 0 to 6.")
    var inversion = "0"

    @Option(parsing: .unconditional, help: "MIDI velocity of every note, 1 to 127 (gain (v/127)²).")
    var velocity = "100"

    @Option(parsing: .unconditional, help: "Pan of the notes, -1 (left) to 1 (right); default: by pitch.")
    var pan: String?

    struct Checked {
        var instrument: InstrumentSynthesizer.Instrument
        var bankPath: String?
        /// `--soundfont` with its preset, when given.
        var font: FontChoice?
        var polyphony: Int
        var octave: Int
        var inversion: Int
        var velocity: Int
        var pan: Float?
    }

    func checked(fileInstrument: InstrumentSynthesizer.Instrument? = nil) throws(CommandLineError) -> Checked {
        if instrument != nil, bank != nil, soundfont == nil {
            throw CommandLineError(.usage, "--instrument and --bank cannot be used together; choose one")
        }
        if instrument != nil, soundfont != nil {
            throw CommandLineError(.usage, "--instrument and --soundfont cannot be used together; choose one")
        }
        if soundfont == nil, let program {
            throw CommandLineError(.usage, "--program \(program) needs --soundfont: it chooses a SoundFont preset")
        }
        let font = try soundfont.map { path throws(CommandLineError) in
            try FontChoice(path: path, bank: bank, program: program)
        }
        let polyphony =
            try self.polyphony.map { text throws(CommandLineError) -> Int in
                guard let value = Int(text), MixerConfiguration.voiceCapacityRange.contains(value) else {
                    throw .usage(option: "--polyphony", "\(text): polyphony must be a whole number from 1 to 4096")
                }
                return value
            } ?? 256
        let requested = self.instrument ?? fileInstrument?.rawValue ?? "piano"
        guard let instrument = InstrumentSynthesizer.Instrument(rawValue: requested) else {
            let names = InstrumentSynthesizer.Instrument.allCases.map(\.rawValue).joined(separator: ", ")
            throw .usage(option: "--instrument", "\(requested): unknown instrument; choose one of \(names)")
        }
        guard let octave = Int(self.octave), (0...8).contains(octave) else {
            throw .usage(option: "--octave", "\(self.octave): the octave must be a whole number from 0 to 8")
        }
        guard let inversion = Int(self.inversion), (0...6).contains(inversion) else {
            throw .usage(option: "--inversion", "\(self.inversion): the inversion must be a whole number from 0 to 6")
        }
        guard let velocity = Int(self.velocity), (1...127).contains(velocity) else {
            throw .usage(option: "--velocity", "\(self.velocity): the velocity must be a whole number from 1 to 127")
        }
        let pan = try self.pan.map { text throws(CommandLineError) -> Float in
            guard let value = Float(text), value.isFinite, (-1...1).contains(value) else {
                throw .usage(option: "--pan", "\(text): the pan must be a number from -1 to 1")
            }
            return value
        }
        return Checked(
            instrument: instrument, bankPath: font == nil ? bank : nil, font: font, polyphony: polyphony,
            octave: octave, inversion: inversion, velocity: velocity, pan: pan)
    }

    /// Parses chords given on the command line (exit 64 naming the chord and its position).
    static func chords(_ text: String) throws(CommandLineError) -> [ChordSymbol] {
        do { return try ChordSymbol.progression(text) } catch { throw CommandLineError(.usage, error.description) }
    }
}

extension NoteOptions.Checked {
    /// The note player's track: the `--soundfont` preset on font channel 16 (the MIDI file channels are 0–15), or
    /// the bank (`--bank` file or built-in instrument) with the voicing's pan.
    func track(sampleRate: SampleRate) throws(CommandLineError) -> NotePlayer.Track {
        if let font {
            return .init(
                font: FontInstrument(font: try font.load(), bank: font.bank, program: font.program, channel: 16),
                gain: FontChoice.noteGain)
        }
        return .init(bank: try loadBank(sampleRate: sampleRate), pan: pan)
    }

    /// The General MIDI program a MIDI export gives the notes: the `--soundfont` preset's program, the built-in
    /// instrument's, 0 for a `--bank` file.
    var midiProgram: UInt8 {
        if let font { return UInt8(font.program) }
        return bankPath == nil ? MIDIExportPart.program(for: instrument) : 0
    }

    /// The bank the notes play: the `--bank` file (malformed 65, missing 66) or the built-in instrument.
    func loadBank(sampleRate: SampleRate) throws(CommandLineError) -> SoundBank {
        guard let bankPath else { return InstrumentSynthesizer.bank(instrument, sampleRate: sampleRate) }
        do {
            return try SoundBankLoader.load(path: bankPath)
        } catch {
            switch error {
            case .malformed(let message): throw CommandLineError(.dataError, "--bank " + message)
            case .positioned(let message): throw CommandLineError(.dataError, message, prefixed: false)
            case .missing(let message): throw CommandLineError(.noInput, "--bank " + message)
            }
        }
    }
}
