/// What a setting is when it is not given, as the text a user would type: the form falls back on it
/// (`SettingForm.value(_:default:_:)`) and the command line's help shows it. The typed settings a library user builds
/// without a form (`LiveSettings`, `JackSettings`, `Voicing`, `ArpeggioSettings`) start from the same values, which
/// `SettingKindTests` holds to these. Settings whose default is not a text (the lookahead, the quantum, a pan by
/// pitch) say so in their help.
public enum SettingDefault {
    /// `--bpm`: quarter notes a minute.
    public static let bpm = "120"
    /// `--meter`.
    public static let meter = "4/4"
    /// `--subdivide`: clicks a beat.
    public static let subdivide = "1"
    /// `--sample-rate`, in hertz.
    public static let sampleRate = "48000"
    /// `--channels` of a rendered file.
    public static let channels = "2"
    /// `--voices` that may sound at once.
    public static let voices = "64"
    /// `--midi-tempo`: a MIDI file's tempo events.
    public static let midiTempo = "steady"
    /// `--latency`, in milliseconds.
    public static let latency = "20"
    /// `--reconnect-timeout`, in seconds.
    public static let reconnectTimeout = "30"
    /// `--client-name` of the JACK client.
    public static let clientName = "metronome"
    /// `--instrument` of the notes.
    public static let instrument = "piano"
    /// `--program` of a SoundFont's preset.
    public static let program = "0"
    /// `--polyphony`: SoundFont voices at once.
    public static let polyphony = "256"
    /// `--octave` of the chord roots.
    public static let octave = "4"
    /// `--inversion` of the chords.
    public static let inversion = "0"
    /// `--velocity` of every note.
    public static let velocity = "100"
    /// `arp --style`.
    public static let style = "up"
    /// `arp --rate`: the step's length.
    public static let rate = "1/16"
    /// `arp --octaves`.
    public static let octaves = "1"
    /// `arp --gate`: the fraction of a step a note sounds.
    public static let gate = "0.8"
    /// `arp --seed` of the random styles.
    public static let seed = "1"
    /// `chord --strum`, in milliseconds.
    public static let strum = "0"
    /// `chord --duration`: how long the chord is held, in seconds.
    public static let heldDuration = "2"
}
