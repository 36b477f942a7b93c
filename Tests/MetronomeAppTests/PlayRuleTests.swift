import MetronomeApp
import Testing

/// `play`'s rules between a file and the settings given, and a render's errors worded for the command line, without
/// the binary: MetronomeCLITests checks the same lines from it.
@Suite("MetronomeApp: a MIDI file's settings, and a render's errors as the command line words them")
struct PlayRuleTests {
    /// The error a form's rule throws, or nil.
    static func refusal(_ entries: [(String, String?)], _ rule: (SettingForm) throws(SettingError) -> Void) -> String? {
        do {
            try rule(SettingForm(entries))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("A pattern refuses a MIDI file's settings, the channels' first and --click last; --start-at is its own")
    func patternRefusesMIDISettings() {
        let rule: (SettingForm) throws(SettingError) -> Void = { form throws(SettingError) in
            try form.refuseMIDIFileSettings()
        }
        #expect(
            Self.refusal([("--transpose", "2"), ("--solo", "1")], rule)
                == "--solo applies to MIDI files; a pattern's notes are its chords")
        #expect(
            Self.refusal([("--click", ""), ("--mute", "10")], rule)
                == "--mute applies to MIDI files; a pattern's notes are its chords")
        #expect(
            Self.refusal([("--click", "")], rule) == "--click applies to MIDI files; a pattern always plays its click")
        #expect(Self.refusal([("--start-at", "2")], rule) == nil)
    }

    @Test("A MIDI file's channels choose their programs: --instrument, a bank file and --program are refused")
    func midiFileVoicing() {
        let rule: (SettingForm) throws(SettingError) -> Void = { form throws(SettingError) in
            _ = try form.midiFileVoicing()
        }
        let refused =
            "--instrument, --bank and --program do not apply to a MIDI file: its channels choose their programs"
        #expect(Self.refusal([("--instrument", "organ")], rule) == refused)
        #expect(Self.refusal([("--bank", "mine.bank")], rule) == refused)
        #expect(Self.refusal([("--soundfont", "gm.sf2"), ("--program", "3")], rule) == refused)
        // A font's bank number is the preset's, not a bank file: taken.
        #expect(Self.refusal([("--soundfont", "gm.sf2"), ("--bank", "128")], rule) == nil)
        #expect(Self.refusal([("--polyphony", "32")], rule) == nil)
        // The voicing's own checks come first.
        #expect(
            Self.refusal([("--polyphony", "0"), ("--instrument", "organ")], rule)?.hasPrefix("--polyphony 0") == true)
    }

    @Test("A render's errors: their exit codes and the --output lines naming the file")
    func renderErrors() {
        let endless = CommandLineError(RenderError.endless, path: "a.wav")
        #expect(endless.status == .usage)
        #expect(endless.message == "--output needs --bars N or --duration SECONDS")
        let large = CommandLineError(RenderError.tooLargeForAIFF(bytes: nil), path: "big.aiff")
        #expect(large.status == .usage)
        #expect(large.message.hasPrefix("--output big.aiff: "))
        #expect(large.message.hasSuffix("; write .wav (RF64 past 4 GB), .flac or .ogg"))
        let writing = CommandLineError(RenderError.writing("short write"), path: "a.wav")
        #expect(writing.status == .ioError)
        #expect(writing.message == "short write")
        let space = CommandLineError(RenderError.noSpace(needed: 2_000_000, free: 1_000), path: "a.wav")
        #expect(space.status == .cannotCreate)
        #expect(space.message.hasPrefix("--output a.wav: "))
        #expect(space.message.hasSuffix("; render less, or pass --force to try"))
    }
}
