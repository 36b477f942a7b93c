import ArgumentParser
import MetronomeFiles
import MetronomeKit

/// Options shared by `arp` and `chord`: the instrument, the voicing and the velocity.
struct NoteOptions: ParsableArguments {
    @Option(help: "Built-in instrument: piano or organ (see 'metronome sounds'; default piano).")
    var instrument: String?

    @Option(
        help: "A sound bank instead of a built-in instrument: our .bank file or a SoundBankPlayer .plist.")
    var bank: String?

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
        var octave: Int
        var inversion: Int
        var velocity: Int
        var pan: Float?
    }

    func checked(fileInstrument: InstrumentSynthesizer.Instrument? = nil) throws(CommandLineError) -> Checked {
        if instrument != nil, bank != nil {
            throw CommandLineError(.usage, "--instrument and --bank cannot be used together; choose one")
        }
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
            instrument: instrument, bankPath: bank, octave: octave, inversion: inversion, velocity: velocity, pan: pan)
    }

    /// Parses chords given on the command line (exit 64 naming the chord and its position).
    static func chords(_ text: String) throws(CommandLineError) -> [ChordSymbol] {
        do { return try ChordSymbol.progression(text) } catch { throw CommandLineError(.usage, error.description) }
    }
}

extension NoteOptions.Checked {
    /// The General MIDI program a MIDI export gives the notes: the built-in instrument's, 0 for a `--bank` file.
    var midiProgram: UInt8 { bankPath == nil ? MIDIExportPart.program(for: instrument) : 0 }

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
