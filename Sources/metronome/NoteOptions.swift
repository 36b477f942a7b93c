import ArgumentParser
import MetronomeKit

/// Options shared by `arp` and `chord`: the instrument, the voicing and the velocity.
struct NoteOptions: ParsableArguments {
    @Option(help: .setting(Settings.Instrument.self))
    var instrument: SettingValue<Settings.Instrument>?
    @Option(help: .setting(Settings.Bank.self))
    var bank: SettingValue<Settings.Bank>?
    @Option(help: .setting(Settings.SoundFont.self))
    var soundfont: SettingValue<Settings.SoundFont>?
    @Option(parsing: .unconditional, help: .setting(Settings.Program.self))
    var program: SettingValue<Settings.Program>?
    @Option(parsing: .unconditional, help: .setting(Settings.Polyphony.self))
    var polyphony: SettingValue<Settings.Polyphony>?
    @Option(parsing: .unconditional, help: .setting(Settings.Octave.self))
    var octave = SettingValue<Settings.Octave>(SettingDefault.octave)
    @Option(parsing: .unconditional, help: .setting(Settings.Inversion.self))
    var inversion = SettingValue<Settings.Inversion>(SettingDefault.inversion)
    @Option(parsing: .unconditional, help: .setting(Settings.Velocity.self))
    var velocity = SettingValue<Settings.Velocity>(SettingDefault.velocity)
    @Option(parsing: .unconditional, help: .setting(Settings.Pan.self))
    var pan: SettingValue<Settings.Pan>?

    /// The options as the library's form.
    var form: SettingForm {
        SettingForm([
            entry(instrument), entry(bank), entry(soundfont), entry(program),
            entry(polyphony), entry(octave), entry(inversion), entry(velocity),
            entry(pan),
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
