import MetronomeSoundFont
/// Where a note's SoundFont zones come from: a loaded font (its presets, with General MIDI's fallbacks). The
/// conformer must keep the zones' memory alive for as long as it lives.
public protocol SoundFontZoneSource: AnyObject, Sendable {
    /// The zones that sound for `key` at `velocity` in the preset `bank`:`program` (or the preset a missing one
    /// falls back to); empty when nothing plays. Called on the scheduling thread.
    func voiceZones(bank: Int, program: Int, key: Int, velocity: Int) -> [UnsafePointer<SoundFontVoiceZone>]
}

/// A note track played through a SoundFont: which font, which preset to start with, on which of the mixer's font
/// channels. Program changes and bank selects on the track change the preset as it plays.
public struct FontInstrument: Sendable {
    /// The font.
    public var font: any SoundFontZoneSource
    /// The starting bank (128: drum kits) and program.
    public var bank: Int
    public var program: Int
    /// The mixer's font channel (0..<`Mixer.fontChannelCount`): its controllers and pitch wheel shape the notes.
    public var channel: Int
    /// Whether bank selects are ignored and the bank stays 128 (General MIDI's channel 10).
    public var isDrumChannel: Bool

    /// Creates an instrument.
    public init(
        font: any SoundFontZoneSource, bank: Int = 0, program: Int = 0, channel: Int, isDrumChannel: Bool = false
    ) {
        self.font = font
        self.bank = bank
        self.program = program
        self.channel = channel
        self.isDrumChannel = isDrumChannel
    }
}
