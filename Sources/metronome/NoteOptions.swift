import ArgumentParser
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

    /// The options as the library's form.
    var form: SettingForm {
        SettingForm([
            ("--instrument", instrument), ("--bank", bank), ("--soundfont", soundfont), ("--program", program),
            ("--polyphony", polyphony), ("--octave", octave), ("--inversion", inversion), ("--velocity", velocity),
            ("--pan", pan),
        ])
    }

    /// Checks every value (`SettingForm.voicing`): the instrument (a pattern file's when none is given), the font's
    /// preset, the voicing.
    func checked(fileInstrument: BuiltInInstrument? = nil) throws(CommandLineError) -> Voicing {
        do { return try form.voicing(fileInstrument: fileInstrument) } catch { throw CommandLineError(error) }
    }

    /// Parses chords given on the command line (exit 64 naming the chord and its position).
    static func chords(_ text: String) throws(CommandLineError) -> [ChordSymbol] {
        do { return try ChordSymbol.progression(text) } catch { throw CommandLineError(.usage, error.description) }
    }
}

extension Voicing {
    /// The note player's track (`Voicing.track`): a font missing 66 or malformed 65, a bank file likewise.
    func checkedTrack(sampleRate: SampleRate) throws(CommandLineError) -> NotePlayer.Track {
        do { return try track(sampleRate: sampleRate) } catch { throw CommandLineError(error) }
    }
}
