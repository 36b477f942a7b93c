import MetronomeSoundFont

extension SoundFont: SoundFontZoneSource {
    /// The zones of the preset `bank`:`program` (or its General MIDI fallback, `preset(bank:program:)`) that play
    /// `key` at `velocity`; empty when the font has neither. Scheduling thread.
    /// - Complexity: O(z) in the preset's zones.
    public func voiceZones(bank: Int, program: Int, key: Int, velocity: Int) -> [UnsafePointer<SoundFontVoiceZone>] {
        guard let preset = preset(bank: bank, program: program) else { return [] }
        return zones(preset: preset, key: key, velocity: velocity)
    }
}
