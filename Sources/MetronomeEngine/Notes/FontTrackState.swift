import MetronomeVoices

/// A font track's state as its messages change it on the scheduling thread: the preset, the bank select waiting
/// for a program change, and the registered parameter being edited.
struct FontTrackState {
    var bank: Int
    var program: Int
    /// The last bank select (CC 0), applied by the next program change.
    var selectedBank: Int
    /// RPN selected by CC 101/100 (0x3FFF: none).
    var parameter = 0x3FFF
    /// Pitch-wheel range being set through RPN 0: semitones (CC 6) and cents (CC 38).
    var rangeSemitones = 2
    var rangeCents = 0

    init(_ instrument: FontInstrument) {
        bank = instrument.bank
        program = instrument.program
        selectedBank = instrument.bank
    }
}
