import MetronomeEngine
import MetronomeModel

/// The built-in instruments at 48 kHz, generated once for the whole suite (banks are immutable and `Sendable`).
public enum SharedBanks {
    /// The built-in piano.
    public static let piano = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
    /// The built-in organ.
    public static let organ = InstrumentSynthesizer.bank(.organ, sampleRate: .standard)

    /// The bank of `instrument`.
    public static func bank(_ instrument: InstrumentSynthesizer.Instrument) -> SoundBank {
        switch instrument {
        case .piano: piano
        case .organ: organ
        }
    }
}
