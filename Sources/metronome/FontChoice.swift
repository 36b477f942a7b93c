import Glibc
import MetronomeFiles
import MetronomeKit

/// A SoundFont and preset chosen on the command line (`--soundfont FONT [--bank B] [--program P]`), or the font a
/// MIDI file plays with when none is given.
struct FontChoice {
    let path: String
    let bank: Int
    let program: Int

    /// Linear gain of notes played through a font (arp, chord, pattern note tracks): the font's own level.
    static let noteGain: Float = 1
    /// Linear gain of a MIDI file's notes: 0.3 (−10.5 dB), room for the dozens of voices a General MIDI file sounds at
    /// once (FluidSynth's default gain is 0.2); the master limiter keeps every sample within ±1.
    static let fileGain: Float = 0.3
    /// Debian's link to the system's General MIDI font.
    static let systemFont = "/usr/share/sounds/sf2/default-GM.sf2"

    /// A pattern file's `instrument soundfont` preset.
    init(_ reference: SoundFontReference) {
        path = reference.path
        bank = reference.bank
        program = reference.program
    }

    init(path: String, bank: String? = nil, program: String? = nil) throws(CommandLineError) {
        self.path = path
        self.bank =
            try bank.map { text throws(CommandLineError) -> Int in
                guard let value = Int(text), (0...128).contains(value) else {
                    throw .usage(
                        option: "--bank", "\(text): with --soundfont, the bank must be a whole number from 0 to 128")
                }
                return value
            } ?? 0
        self.program =
            try program.map { text throws(CommandLineError) -> Int in
                guard let value = Int(text), (0...127).contains(value) else {
                    throw .usage(option: "--program", "\(text): the program must be a whole number from 0 to 127")
                }
                return value
            } ?? 0
    }

    /// The font a MIDI file plays with: `--soundfont`, else `$METRONOME_SOUNDFONT`, else the system's General MIDI
    /// font; nil when there is none, or when the variable says `none` (the built-in instruments play). `origin` is
    /// what named it, for messages.
    static func forMIDIFile(given: String?) -> (path: String, origin: String)? {
        if let given { return (given, "--soundfont") }
        if let variable = getenv("METRONOME_SOUNDFONT"), variable[0] != 0 {
            let value = String(cString: variable)
            return value == "none" ? nil : (value, "$METRONOME_SOUNDFONT")
        }
        return access(systemFont, R_OK) == 0 ? (systemFont, "the system's General MIDI font") : nil
    }

    /// Loads the font: missing 66, malformed 65 (`FONT: error: at byte N: …`).
    func load() throws(CommandLineError) -> SoundFont {
        try FontChoice.load(path: path)
    }

    /// Loads the font at `path`: missing 66 with a message starting with `origin` (what named the file: an option
    /// or the variable), malformed 65 (`FONT: error: at byte N: …`).
    static func load(path: String, origin: String = "--soundfont") throws(CommandLineError) -> SoundFont {
        do {
            return try SoundFontFile.load(path: path)
        } catch {
            if case .malformed = error { throw CommandLineError(.dataError, error.description, prefixed: false) }
            throw CommandLineError(error.isMissing ? .noInput : .dataError, origin + " " + error.description)
        }
    }
}
