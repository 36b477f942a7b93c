import MetronomeModel
import MetronomeMusic

extension SettingForm {
    /// Checks the notes' settings: the instrument (`--instrument`, `--bank`, or a pattern file's `fileInstrument`
    /// when neither is given), the font's preset (`--soundfont`, `--bank`, `--program`), `--polyphony`, and the voicing
    /// (`--octave`, `--inversion`, `--velocity`, `--pan`).
    public func voicing(fileInstrument: BuiltInInstrument? = nil) throws(SettingError) -> Voicing {
        let soundfont = self["--soundfont"]
        if soundfont == nil { try exclusive("--instrument", "--bank") }
        try exclusive("--instrument", "--soundfont")
        if soundfont == nil, let program = self["--program"] {
            throw SettingError("--program", "\(program) needs --soundfont: it chooses a SoundFont preset")
        }
        let font = try soundfont.map { path throws(SettingError) in
            FontChoice(
                path: path,
                bank: try value("--bank") { text throws(InvalidValue) -> Int in
                    guard let value = Int(text), (0...128).contains(value) else {
                        throw InvalidValue(
                            value: text, reason: "with --soundfont, the bank must be a whole number from 0 to 128")
                    }
                    return value
                } ?? 0,
                program: try value("--program", default: SettingDefault.program, SettingText.program))
        }
        let polyphony = try value("--polyphony", default: SettingDefault.polyphony, SettingText.polyphony)
        let requested = self["--instrument"] ?? fileInstrument?.rawValue ?? SettingDefault.instrument
        guard let instrument = BuiltInInstrument(rawValue: requested) else {
            let names = BuiltInInstrument.allCases.map(\.rawValue).joined(separator: ", ")
            throw SettingError("--instrument", "\(requested): unknown instrument; choose one of \(names)")
        }
        var voicing = Voicing()
        voicing.octave = try value("--octave", default: SettingDefault.octave, SettingText.octave)
        voicing.inversion = try value("--inversion", default: SettingDefault.inversion, SettingText.inversion)
        voicing.velocity = try value("--velocity", default: SettingDefault.velocity, SettingText.velocity)
        voicing.pan = try value("--pan", SettingText.pan)
        voicing.instrument = instrument
        voicing.bankPath = font == nil ? self["--bank"] : nil
        voicing.font = font
        voicing.polyphony = polyphony
        return voicing
    }

    /// Checks `arp`'s settings (`--style`, `--rate`, `--octaves`, `--gate`, `--swing` of the steps,
    /// `--beats-per-chord`, `--seed`) with `voicing`'s octave, velocity and inversion.
    public func arpeggio(voicing: Voicing) throws(SettingError) -> ArpeggioSettings {
        var settings = ArpeggioSettings()
        settings.order = try value("--style", default: SettingDefault.style, SettingText.arpeggioOrder)
        let rateText = self["--rate"] ?? SettingDefault.rate
        let stepRate = try Self.parse("--rate", rateText, SettingText.stepRate)
        settings.rate = stepRate
        settings.octaves = try value("--octaves", default: SettingDefault.octaves, SettingText.arpeggioOctaves)
        settings.gate = try value("--gate", default: SettingDefault.gate, SettingText.gate)
        if let swing = self["--swing"] {
            guard stepRate != .eighthTriplet, stepRate != .sixteenthTriplet else {
                throw SettingError("--swing", "\(swing): swing applies to straight rates, not \(rateText)")
            }
            settings.swing = try self.swing(defaultNote: stepRate == .sixteenth || stepRate == .thirtySecond ? 16 : 8)
        }
        if let beats = try value("--beats-per-chord", SettingText.beatsPerChord) { settings.chordBeats = beats }
        settings.seed = try value("--seed", default: SettingDefault.seed, SettingText.seed)
        settings.octave = voicing.octave
        settings.velocity = voicing.velocity
        settings.inversion = voicing.inversion
        return settings
    }

}

extension SettingForm {
    /// Applies a MIDI file's settings to its playback: `--start-at`, the click along (`--click`), and the channels
    /// muted (`--mute`), soloed (`--solo`) and the transposition (`--transpose`), checked.
    public func configure(_ playback: inout MIDIPlayback) throws(SettingError) {
        playback.startAt = self["--start-at"]
        playback.click = has("--click")
        playback.muted = try value("--mute", SettingText.midiChannels) ?? []
        playback.soloed = try value("--solo", SettingText.midiChannels) ?? []
        playback.transpose = try value("--transpose", SettingText.transposition) ?? 0
    }

    /// Refuses a MIDI file's settings for a pattern: the first of `--mute`, `--solo` and `--transpose` given (a
    /// pattern's notes are its chords), then `--click` (a pattern always plays its click).
    public func refuseMIDIFileSettings() throws(SettingError) {
        try refuse(["--mute", "--solo", "--transpose"], "applies to MIDI files; a pattern's notes are its chords")
        try refuse(["--click"], "applies to MIDI files; a pattern always plays its click")
    }

    /// Checks the notes' settings for a MIDI file (`voicing`): its channels choose their programs, so
    /// `--instrument`, a `--bank` file and `--program` are refused (a font's `--bank` number is taken).
    public func midiFileVoicing() throws(SettingError) -> Voicing {
        let voicing = try voicing()
        if voicing.bankPath != nil || has("--instrument") || has("--program") {
            throw SettingError(
                "--instrument, --bank and --program do not apply to a MIDI file: its channels choose their programs")
        }
        return voicing
    }
}
