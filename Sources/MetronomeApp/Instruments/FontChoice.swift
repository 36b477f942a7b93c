import Glibc
import MetronomeFiles
import MetronomeModel
import MetronomeSoundFont

/// A SoundFont and one of its presets: what notes play through when a font is chosen, or the font a MIDI file plays
/// with when none is (`forMIDIFile(given:)`).
///
/// Threads: a value; `load()` reads the file on the calling thread.
public struct FontChoice: Sendable, Hashable {
    /// The font file (.sf2 or .sf3).
    public let path: String
    /// The preset's bank, 0...128 (128 holds drum kits).
    public let bank: Int
    /// The preset's program, 0...127.
    public let program: Int

    /// Linear gain of notes played through a font (arp, chord, pattern note tracks): the font's own level.
    public static let noteGain: Float = 1
    /// Linear gain of a MIDI file's notes: 0.3 (−10.5 dB), room for the dozens of voices a General MIDI file sounds at
    /// once (FluidSynth's default gain is 0.2); the master limiter keeps every sample within ±1.
    public static let fileGain: Float = 0.3
    /// Debian's link to the system's General MIDI font.
    public static let systemFont = "/usr/share/sounds/sf2/default-GM.sf2"

    /// A font's preset.
    /// - Parameters:
    ///   - path: the font file.
    ///   - bank: the preset's bank, 0...128.
    ///   - program: the preset's program, 0...127.
    public init(path: String, bank: Int = 0, program: Int = 0) {
        self.path = path
        self.bank = bank
        self.program = program
    }

    /// A pattern file's `instrument soundfont` preset.
    /// - Parameter reference: the preset as the file names it (its path already resolved).
    public init(_ reference: SoundFontReference) {
        self.init(path: reference.path, bank: reference.bank, program: reference.program)
    }

    /// Where the font a MIDI file plays with comes from.
    public enum Origin: Sendable, Hashable {
        /// Given explicitly (the command line's `--soundfont`).
        case given
        /// `$METRONOME_SOUNDFONT`.
        case environment
        /// The system's General MIDI font (`systemFont`).
        case system
    }

    /// The font a MIDI file plays with: the one given, else `$METRONOME_SOUNDFONT`, else the system's General MIDI
    /// font; nil when there is none, or when the variable says `none` (the built-in instruments play).
    /// - Parameter given: a font chosen explicitly.
    /// - Returns: the path and what named it.
    public static func forMIDIFile(given: String?) -> (path: String, origin: Origin)? {
        if let given { return (given, .given) }
        if let variable = getenv("METRONOME_SOUNDFONT"), variable[0] != 0 {
            let value = String(cString: variable)
            return value == "none" ? nil : (value, .environment)
        }
        return access(systemFont, R_OK) == 0 ? (systemFont, .system) : nil
    }

    /// Loads the font.
    /// - Throws: `SoundFontFileError`: missing, unreadable or malformed (with the byte offset).
    public func load() throws(SoundFontFileError) -> SoundFont {
        try SoundFontFile.load(path: path)
    }
}
