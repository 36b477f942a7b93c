import MetronomeModel

// The settings a user gives by name: each one's name, its help (its default from `SettingDefault`) and the
// library's parser of its text (`SettingText`), in the order of the command line's help.
extension Settings {
    /// `--bpm`.
    public enum BPM: SettingKind {
        public static let name = "--bpm"
        public static let help =
            "Tempo in quarter notes per minute, 1 to 1000, or of another beat: 4.=60 (default \(SettingDefault.bpm))."
        public static func read(_ text: String) throws(InvalidValue) -> MetronomeModel.BPM {
            try SettingText.tempo(text)
        }
    }
    /// `--meter`.
    public enum Meter: SettingKind {
        public static let name = "--meter"
        public static let help = """
            Time signature n/d: n from 1 to 64, d one of 1, 2, 4, 8, 16, 32 (default \(SettingDefault.meter)); n/d=a+b+… groups the \
            beats, accenting each group's first (7/8=2+2+3).
            """
    }
    /// `--accent`.
    public enum Accent: SettingKind {
        public static let name = "--accent"
        public static let help =
            "One letter per beat: X accent, x normal, o soft, . silent (default: accent on beat one)."
    }
    /// `--subdivide`.
    public enum Subdivide: SettingKind {
        public static let name = "--subdivide"
        public static let help =
            "Clicks per beat, 1 to 16 (2 adds off-beats, 3 triplets, 4 sixteenths; default \(SettingDefault.subdivide))."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.subdivision(text) }
    }
    /// `--count-in`.
    public enum CountIn: SettingKind {
        public static let name = "--count-in"
        public static let help = "Bars of count-in (a distinct sound) before bar 1, 0 to 16."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.countIn(text) }
    }
    /// `--bars`.
    public enum Bars: SettingKind {
        public static let name = "--bars"
        public static let help = "Stop after this many bars."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.bars(text) }
    }
    /// `--practice`.
    public enum Practice: SettingKind {
        public static let name = "--practice"
        public static let help = "Practise for 20m, 90s, 1h30m…: the bar ends, a chime sounds, it stops."
        public static func read(_ text: String) throws(InvalidValue) -> Seconds {
            try SettingText.practiceDuration(text)
        }
    }
    /// `--random-mute`.
    public enum RandomMute: SettingKind {
        public static let name = "--random-mute"
        public static let help = "Mute whole bars at random: 0.25 or 25%."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.muteProbability(text) }
    }
    /// `--mute-seed`.
    public enum MuteSeed: SettingKind {
        public static let name = "--mute-seed"
        public static let help = "The random mute's seed (default: printed)."
        public static func read(_ text: String) throws(InvalidValue) -> UInt64 { try SettingText.seed(text) }
    }
    /// `--sound`.
    public enum Sound: SettingKind {
        public static let name = "--sound"
        public static let help = "Built-in click sound (see 'metronome sounds')."
    }
    /// `--sound-file`.
    public enum SoundFile: SettingKind {
        public static let name = "--sound-file"
        public static let help =
            "Your own samples ACCENT[,NORMAL[,SUBDIVISION]] in any format libsndfile reads (mono or stereo)."
    }
    /// `--duration`.
    public enum Duration: SettingKind {
        public static let name = "--duration"
        public static let help = "Stop after this many seconds."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.duration(text) }
    }
    /// `--volume`.
    public enum Volume: SettingKind {
        public static let name = "--volume"
        public static let help = "Perceptual volume 0 to 1 (gain = volume³, like PulseAudio's slider)."
        public static func read(_ text: String) throws(InvalidValue) -> Float { try SettingText.volumeGain(text) }
    }
    /// `--gain-db`.
    public enum GainDB: SettingKind {
        public static let name = "--gain-db"
        public static let help = "Master gain in dB, -96 to 12, instead of --volume."
        public static func read(_ text: String) throws(InvalidValue) -> Float { try SettingText.decibelGain(text) }
    }
    /// `--sample-rate`.
    public enum SampleRate: SettingKind {
        public static let name = "--sample-rate"
        public static let help =
            "Output sample rate in Hz: \(MetronomeModel.SampleRate.allowed.dropLast().map(String.init).joined(separator: ", ")) or "
            + "\(MetronomeModel.SampleRate.allowed.last!). (default: \(SettingDefault.sampleRate))"
        public static func read(_ text: String) throws(InvalidValue) -> MetronomeModel.SampleRate {
            try MetronomeModel.SampleRate(parsing: text)
        }
    }
    /// `--voices`.
    public enum Voices: SettingKind {
        public static let name = "--voices"
        public static let help = "Voices that may sound at once, 1 to 4096. (default: \(SettingDefault.voices))"
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.voices(text) }
    }
    /// `--output`.
    public enum Output: SettingKind {
        public static let name = "--output"
        public static let help =
            "Render to this file instead of playing (.wav, .flac, .ogg or .aiff), or export a MIDI file (.mid)."
    }
    /// `--format`.
    public enum Format: SettingKind {
        public static let name = "--format"
        public static let help = "Sample type of the file: pcm16, pcm24 or float (default float; pcm24 for .flac)."
    }
    /// `--midi-tempo`.
    public enum MIDITempo: SettingKind {
        public static let name = "--midi-tempo"
        public static let help =
            "A MIDI file's tempo events: steady (one per tempo change) or exact (one every beat, every beat on its "
            + "frame). (default: \(SettingDefault.midiTempo))"
    }
    /// `--channels`.
    public enum Channels: SettingKind {
        public static let name = "--channels"
        public static let help = "Channels of the file: 1 or 2. (default: \(SettingDefault.channels))"
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.channels(text) }
    }
    /// `--swing`.
    public enum Swing: SettingKind {
        public static let name = "--swing"
        public static let help = """
            Swing of the eighths, 0 to 75 percent (50 = triplet feel, 75 = dotted); 16=P swings the sixteenths, 8=P \
            the eighths. The language's 'swing 8 50%'.
            """
    }
    /// `--gap`.
    public enum Gap: SettingKind {
        public static let name = "--gap"
        public static let help =
            "Gap practice PLAY:MUTE: bars with the click, then bars of silence, over and over (3:1)."
        public static func read(_ text: String) throws(InvalidValue) -> GapPractice { try SettingText.gap(text) }
    }
    /// `--trainer`.
    public enum Trainer: SettingKind {
        public static let name = "--trainer"
        public static let help = """
            Tempo trainer STEP/BARS:LIMIT: add STEP BPM every BARS bars until LIMIT, then hold (+4/2:160; -5/4:60 \
            slows down). The language's 'trainer +4 every 2 bars to 160'.
            """
    }
    /// `--latency`.
    public enum Latency: SettingKind {
        public static let name = "--latency"
        public static let help = "Target output latency in milliseconds, 2 to 2000 (default \(SettingDefault.latency))."
        public static func read(_ text: String) throws(InvalidValue) -> Swift.Duration { try SettingText.latency(text) }
    }
    /// `--lookahead`.
    public enum Lookahead: SettingKind {
        public static let name = "--lookahead"
        public static let help =
            "How far ahead clicks are scheduled, in milliseconds, 5 to 2000 (default: 10 ms timer + latency + 10; "
            + "through JACK, two periods for the latency)."
        public static func read(_ text: String) throws(InvalidValue) -> Swift.Duration {
            try SettingText.lookahead(text)
        }
    }
    /// `--device`.
    public enum Device: SettingKind {
        public static let name = "--device"
        public static let help =
            "PulseAudio sink to play to (see 'metronome devices'; default: the server's default sink)."
    }
    /// `--driver`.
    public enum Driver: SettingKind {
        public static let name = "--driver"
        public static let help = """
            Where to play: pulse (PulseAudio or PipeWire's pulse server, the default) or jack (a running JACK server: \
            JACK_DEFAULT_SERVER, or 'default'; never started for you).
            """
    }
    /// `--reconnect-timeout`.
    public enum ReconnectTimeout: SettingKind {
        public static let name = "--reconnect-timeout"
        public static let help = """
            If the sound server or the sink goes away while playing, how long to keep the beat going silently and \
            retry, in seconds, 1 to 86400, before exit 69 (default \(SettingDefault.reconnectTimeout)).
            """
        public static func read(_ text: String) throws(InvalidValue) -> Swift.Duration {
            try SettingText.reconnectTimeout(text)
        }
    }
    /// `--log-file`.
    public enum LogFile: SettingKind {
        public static let name = "--log-file"
        public static let help = """
            The practice log every live run is recorded in (default: $XDG_DATA_HOME/metronome/practice.sqlite, \
            else ~/.local/share/metronome/practice.sqlite; see 'metronome log').
            """
    }
    /// `--client-name`.
    public enum ClientName: SettingKind {
        public static let name = "--client-name"
        public static let help = "With --driver jack: the JACK client's name (default \(SettingDefault.clientName))."
    }
    /// `--connect`.
    public enum Connect: SettingKind {
        public static let name = "--connect"
        public static let help = """
            With --driver jack: the ports out_1 and out_2 connect to, separated by a comma (default: the first \
            physical playback ports).
            """
    }
    /// `--midi-connect`.
    public enum MIDIConnect: SettingKind {
        public static let name = "--midi-connect"
        public static let help = """
            With --driver jack: the MIDI ports midi_out connects to, separated by commas (default: none). midi_out \
            always sends MIDI clock, Start, Stop, Continue and Song Position.
            """
    }
    /// `--transport`.
    public enum Transport: SettingKind {
        public static let name = "--transport"
        public static let help = """
            With --driver jack: follow the JACK transport: start-stop (start, stop and locate with it; the map's time \
            from the top is the transport's frame), master (the same, and the timebase master: bar, beat, tick and \
            tempo from our map for every client) or follow (as start-stop, with the timebase master's tempo, meter \
            and beats while there is one; our own tempo changes are then ignored).
            """
    }
    /// `--follow`.
    public enum Follow: SettingKind {
        public static let name = "--follow"
        public static let help = """
            With --driver jack: midi-clock: the MIDI clock arriving on midi_in leads tempo and phase, and its Start, \
            Stop, Continue and Song Position play, stop and locate; with --link, it leads the Link session too, with \
            --transport master the JACK transport (docs/midi-clock.md).
            """
    }
    /// `--midi-next`.
    public enum MIDINext: SettingKind {
        public static let name = "--midi-next"
        public static let help = """
            With --driver jack, playing a setlist: the MIDI on midi_in that goes to the next song, ccN (a controller \
            pressed: its value reaching 64, a foot switch) or noteN (a note on), or none (default: cc64). Program \
            Change N always goes to song N.
            """
    }
    /// `--midi-previous`.
    public enum MIDIPrevious: SettingKind {
        public static let name = "--midi-previous"
        public static let help =
            "With --driver jack, playing a setlist: the MIDI that goes to the song before, as --midi-next (default: cc67)."
    }
    /// `--quantum`.
    public enum Quantum: SettingKind {
        public static let name = "--quantum"
        public static let help =
            "With --link: beats per phase cycle, 1 to 64 (default: the first bar's length in quarter notes)."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.quantum(text) }
    }
    /// `--instrument`.
    public enum Instrument: SettingKind {
        public static let name = "--instrument"
        public static let help =
            "Built-in instrument: piano or organ (see 'metronome sounds'; default \(SettingDefault.instrument))."
    }
    /// `--bank`.
    public enum Bank: SettingKind {
        public static let name = "--bank"
        public static let help = """
            A sound bank instead of a built-in instrument: our .bank file or a SoundBankPlayer .plist; with \
            --soundfont, the preset's bank number instead (0 to 128; 128 holds drum kits).
            """
    }
    /// `--soundfont`.
    public enum SoundFont: SettingKind {
        public static let name = "--soundfont"
        public static let help = "Play the notes with this SoundFont (.sf2 or .sf3) instead of a built-in instrument."
    }
    /// `--program`.
    public enum Program: SettingKind {
        public static let name = "--program"
        public static let help =
            "The SoundFont preset's program, 0 to 127 (with --soundfont; default \(SettingDefault.program))."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.program(text) }
    }
    /// `--polyphony`.
    public enum Polyphony: SettingKind {
        public static let name = "--polyphony"
        public static let help =
            "SoundFont voices that may sound at once, 1 to 4096 (default \(SettingDefault.polyphony))."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.polyphony(text) }
    }
    /// `--octave`.
    public enum Octave: SettingKind {
        public static let name = "--octave"
        public static let help = "Octave of the chord roots, 0 to 8 (C4 is middle C)."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.octave(text) }
    }
    /// `--inversion`.
    public enum Inversion: SettingKind {
        public static let name = "--inversion"
        public static let help = "Inversion: move the lowest note up an octave this many times, 0 to 6."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.inversion(text) }
    }
    /// `--velocity`.
    public enum Velocity: SettingKind {
        public static let name = "--velocity"
        public static let help = "MIDI velocity of every note, 1 to 127 (gain (v/127)²)."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.velocity(text) }
    }
    /// `--pan`.
    public enum Pan: SettingKind {
        public static let name = "--pan"
        public static let help = "Pan of the notes, -1 (left) to 1 (right); default: by pitch."
        public static func read(_ text: String) throws(InvalidValue) -> Float { try SettingText.pan(text) }
    }
    /// `--rate`.
    public enum Rate: SettingKind {
        public static let name = "--rate"
        public static let help = "Step length: 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32."
        public static func read(_ text: String) throws(InvalidValue) -> StepRate { try SettingText.stepRate(text) }
    }
    /// `--style`.
    public enum Style: SettingKind {
        public static let name = "--style"
        public static let help = "Note order (see above)."
        public static func read(_ text: String) throws(InvalidValue) -> ArpeggioOrder {
            try SettingText.arpeggioOrder(text)
        }
    }
    /// `--octaves`.
    public enum Octaves: SettingKind {
        public static let name = "--octaves"
        public static let help = "Octaves the chord spreads over, 1 to 4."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.arpeggioOctaves(text) }
    }
    /// `--gate`.
    public enum Gate: SettingKind {
        public static let name = "--gate"
        public static let help = "Fraction of each step a note sounds, 0.05 to 1."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.gate(text) }
    }
    /// `--beats-per-chord`.
    public enum BeatsPerChord: SettingKind {
        public static let name = "--beats-per-chord"
        public static let help = "Beats each chord lasts (default: one bar)."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.beatsPerChord(text) }
    }
    /// `--seed`.
    public enum Seed: SettingKind {
        public static let name = "--seed"
        public static let help = "Seed of the random styles."
        public static func read(_ text: String) throws(InvalidValue) -> UInt64 { try SettingText.seed(text) }
    }
    /// `--strum`.
    public enum Strum: SettingKind {
        public static let name = "--strum"
        public static let help = "Milliseconds between successive notes, 0 to 1000."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.strum(text) }
    }
    /// `--start-at`.
    public enum StartAt: SettingKind {
        public static let name = "--start-at"
        public static let help =
            "Start at this label (of a section or a repeat) or bar number (from 1, as 'check' prints)."
    }
    /// `--tempo-scale`.
    public enum TempoScale: SettingKind {
        public static let name = "--tempo-scale"
        public static let help = "Multiply every tempo by this factor, 0.1 to 10 (0.8 practises at 80%)."
        public static func read(_ text: String) throws(InvalidValue) -> Double { try SettingText.tempoScale(text) }
    }
    /// `--mute`.
    public enum Mute: SettingKind {
        public static let name = "--mute"
        public static let help =
            "MIDI files: leave out these channels' notes, 1 to 16 separated by commas (10 is the drums)."
        public static func read(_ text: String) throws(InvalidValue) -> Set<Int> { try SettingText.midiChannels(text) }
    }
    /// `--solo`.
    public enum Solo: SettingKind {
        public static let name = "--solo"
        public static let help = "MIDI files: play only these channels' notes, 1 to 16 separated by commas."
        public static func read(_ text: String) throws(InvalidValue) -> Set<Int> { try SettingText.midiChannels(text) }
    }
    /// `--transpose`.
    public enum Transpose: SettingKind {
        public static let name = "--transpose"
        public static let help = "MIDI files: move every note but the drums this many semitones, -48 to 48."
        public static func read(_ text: String) throws(InvalidValue) -> Int { try SettingText.transposition(text) }
    }
    /// `--osc`.
    public enum OSC: SettingKind {
        public static let name = "--osc"
        public static let help =
            "Where to listen for OSC over UDP, [HOST:]PORT (a port alone is on 127.0.0.1; default 127.0.0.1:7770)."
    }
    /// `--http`.
    public enum HTTP: SettingKind {
        public static let name = "--http"
        public static let help = """
            Also serve the web remote, a page and a WebSocket over HTTP, on [HOST:]PORT (bare --http: 127.0.0.1:7780). \
            Any address but a loopback one needs the token printed with the URL (at a terminal, also as a QR code).
            """
    }
}

// `metronome clock`'s and `metronome log`'s own.
extension Settings {
    /// `clock --from`.
    public enum From: SettingKind {
        public static let name = "--from"
        public static let help =
            "A JACK MIDI output port to connect to metronome:midi_in (default: none; connect one yourself)."
    }
    /// `clock --seconds` (not `--duration`: the main command's `--duration` would take it).
    public enum ListenSeconds: SettingKind {
        public static let name = "--seconds"
        public static let help = "Listen for this many seconds, 0.1 to 86400 (default: until Ctrl-C)."
        public static func read(_ text: String) throws(InvalidValue) -> Double {
            try SettingText.number(text, in: 0.1...86_400, "give 0.1 to 86400 seconds")
        }
    }
    /// `log --since`.
    public enum Since: SettingKind {
        public static let name = "--since"
        public static let help =
            "Only runs from this day on, YYYY-MM-DD (local date), in the per-song table and --runs."
    }
    /// `log --until`.
    public enum Until: SettingKind {
        public static let name = "--until"
        public static let help = "Only runs up to this day, YYYY-MM-DD (local date), in the per-song table and --runs."
    }
}
