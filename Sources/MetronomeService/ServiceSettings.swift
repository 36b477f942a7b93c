import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic

/// What a service needs besides its session: the notes' instrument and voicing, and how to load a pattern by name.
public struct ServiceSettings: Sendable {
    /// The bank `/metronome/note`, `/metronome/chord` and `/metronome/arp` play.
    public var bank: SoundBank
    /// Octave of chord roots (C4 = 60).
    public var octave: Int = 4
    /// Inversion of every chord.
    public var inversion: Int = 0
    /// Velocity of chord and arpeggio notes.
    public var velocity: Int = 100
    /// Fixed pan of the notes, or nil for pan by pitch.
    public var pan: Float?
    /// The click style the session started with (reported by `/metronome/state` and klick's `config/sound`).
    public var sound: String = ClickStyle.standard.rawValue
    /// The perceptual volume the session started with, 0...1.
    public var volume: Float = 1
    /// The pattern (or MIDI) file the session started with, as it was named (reported as `pattern` by
    /// `/metronome/state` and by klick's `map/filename` until another is loaded); empty for none.
    public var patternName = ""
    /// Loads a pattern file or shipped pattern name (`/metronome/pattern`, klick's `map/load_file`) into a map at
    /// the session's rate, with klick's tempo multiplier and preroll: `PatternLibrary` for files.
    public var patterns: any PatternLoading
    /// The Link session `/metronome/link…` switches and sets; nil: those addresses are refused.
    public var link: (any ServiceLink)?
    /// Listening to a MIDI clock (through JACK): its follower's state now, for `/metronome/state` and the page.
    public var midiClock: (@Sendable () -> MIDIClockStatus)?
    /// Whether that clock leads, switched by `/metronome/follow`; nil: it leads whenever `midiClock` is set
    /// (`--follow midi-clock`), and `/metronome/follow midi-clock` is refused without it.
    public var clockLead: (any ServiceClockLead)?
    /// The set served (`serve gig.setlist`), switched by `/metronome/setlist/…`; nil: those addresses are refused.
    public var setlist: SetlistPlayer?

    /// Settings for a bank and a pattern loader; the rest takes its defaults.
    /// - Parameters:
    ///   - bank: what the notes play.
    ///   - patterns: where patterns come from (default: the shipped ones and files, `PatternLibrary`).
    public init(bank: SoundBank, patterns: any PatternLoading = PatternLibrary()) {
        self.bank = bank
        self.patterns = patterns
    }

    /// Settings for serving `plan`: its click sound and its gain as a volume (∛gain, at most 1), the notes playing
    /// `voicing`'s bank (a `--bank` file or its built-in instrument) with its octave, inversion, velocity and pan.
    /// - Parameters:
    ///   - plan: what the service starts playing.
    ///   - voicing: the notes' instrument and voicing (its SoundFont, if any, is not the service's: that plays a
    ///     served MIDI file).
    ///   - patterns: where patterns come from.
    /// - Throws: a bank file missing or malformed.
    public init(plan: ClickPlan, voicing: Voicing, patterns: any PatternLoading = PatternLibrary())
        throws(InstrumentError)
    {
        self.init(bank: try voicing.bank(sampleRate: plan.sampleRate), patterns: patterns)
        octave = voicing.octave
        inversion = voicing.inversion
        velocity = voicing.velocity
        pan = voicing.pan
        sound = plan.sound.rawValue
        volume = plan.volume
    }
}

/// An output as the service sees it: a clock for time tags and beats, and the server's underrun count
/// (`OutputClock`, which every `OutputBackend` is).
public typealias ServiceOutput = OutputClock
