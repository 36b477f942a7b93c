import MetronomeKit

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
    /// Loads a pattern file or shipped pattern name into a map at the session's rate, with a tempo multiplier (klick's
    /// `map/set_tempo_multiplier`) and a count-in in bars (klick's `map/set_preroll`; nil: the file's own); throws a
    /// one-line reason.
    public var loadPattern: @Sendable (_ name: String, _ tempoScale: Double?, _ countIn: Int?) throws -> TempoMap

    /// Settings for a bank and a pattern loader; the rest takes its defaults.
    public init(
        bank: SoundBank,
        loadPattern: @escaping @Sendable (_ name: String, _ tempoScale: Double?, _ countIn: Int?) throws -> TempoMap
    ) {
        self.bank = bank
        self.loadPattern = loadPattern
    }
}

/// An output as the service sees it: a clock for time tags and beats, and the server's underrun count.
public protocol ServiceOutput: FrameClock {
    /// Underruns the sound server has reported.
    var underrunCount: Int { get }
}

/// Why a message was refused: one line, kept as the state's `error` value.
struct Rejection: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
