@testable import MetronomeEngine
@testable import MetronomeKit
@testable import MetronomeLive
@testable import MetronomeModel
@testable import MetronomeMusic
@testable import MetronomePatterns

/// The built-in instruments at 48 kHz, generated once for the whole suite (banks are immutable and `Sendable`).
enum SharedBanks {
    static let piano = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
    static let organ = InstrumentSynthesizer.bank(.organ, sampleRate: .standard)

    static func bank(_ instrument: InstrumentSynthesizer.Instrument) -> SoundBank {
        switch instrument {
        case .piano: piano
        case .organ: organ
        }
    }
}
