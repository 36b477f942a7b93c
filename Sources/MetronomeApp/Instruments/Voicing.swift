import MetronomeEngine
import MetronomeFiles
import MetronomeMIDI
import MetronomeModel
import MetronomeSoundFont

/// How notes sound (arp, chord, a pattern's note track, the OSC service's notes): the instrument — a SoundFont
/// preset, a sample bank file, or a built-in instrument — and the voicing: octave, inversion, velocity, pan.
///
/// Threads: a value; its loaders read files on the calling thread.
public struct Voicing: Sendable, Hashable {
    /// The built-in instrument, when neither a font nor a bank file is chosen.
    public var instrument: BuiltInInstrument = .piano
    /// A sample bank file (our `.bank`, or a SoundBankPlayer `.plist`) instead of the built-in instrument.
    public var bankPath: String?
    /// A SoundFont preset instead of either.
    public var font: FontChoice?
    /// SoundFont voices that may sound at once.
    public var polyphony = 256
    /// Octave of chord roots (C4 is middle C), 0...8.
    public var octave = 4
    /// Times the lowest note moves up an octave, 0...6.
    public var inversion = 0
    /// MIDI velocity of every note, 1...127.
    public var velocity = 100
    /// Fixed pan, -1...1; nil: by pitch.
    public var pan: Float?

    /// The default voicing: the built-in piano, octave 4, velocity 100.
    public init() {}

    /// The note player's track: the font preset on font channel 16 (a MIDI file's channels are 0–15), or the bank
    /// (file or built-in instrument) with the pan.
    /// - Parameter sampleRate: the output rate.
    /// - Throws: `InstrumentError` when the font or the bank file cannot be loaded.
    public func track(sampleRate: SampleRate) throws(InstrumentError) -> NotePlayer.Track {
        if let font {
            let loaded: SoundFont
            do { loaded = try font.load() } catch { throw .font(error) }
            return .init(
                font: FontInstrument(font: loaded, bank: font.bank, program: font.program, channel: 16),
                gain: FontChoice.noteGain)
        }
        return .init(bank: try bank(sampleRate: sampleRate), pan: pan)
    }

    /// The General MIDI program a MIDI export gives the notes: the font preset's program, the built-in instrument's,
    /// 0 for a bank file.
    public var midiProgram: UInt8 {
        if let font { return UInt8(font.program) }
        return bankPath == nil ? MIDIExportPart.program(for: instrument) : 0
    }

    /// The bank the notes play: the bank file, or the built-in instrument made for `sampleRate`.
    /// - Throws: `InstrumentError.bank` when the file is missing or malformed.
    public func bank(sampleRate: SampleRate) throws(InstrumentError) -> SoundBank {
        guard let bankPath else { return InstrumentSynthesizer.bank(instrument, sampleRate: sampleRate) }
        do { return try SoundBankLoader.load(path: bankPath) } catch { throw .bank(error) }
    }
}

/// Why an instrument could not be loaded.
public enum InstrumentError: Error, Sendable, CustomStringConvertible {
    /// The SoundFont is missing, unreadable or malformed.
    case font(SoundFontFileError)
    /// The bank file is missing or malformed.
    case bank(SoundBankLoader.Failure)

    /// The loader's message.
    public var description: String {
        switch self {
        case .font(let error): error.description
        case .bank(.malformed(let message)), .bank(.positioned(let message)), .bank(.missing(let message)): message
        }
    }
}
