/// A preset of a `SoundFont`: what a MIDI bank select and program change choose. Its voice zones live in the font
/// that made it, and only that font can look them up.
public struct SoundFontPreset: Sendable, Hashable, CustomStringConvertible {
    /// The preset's name as the font spells it (at most 20 bytes).
    public let name: String
    /// The MIDI bank: 0 and up for melodic presets, 128 for drum kits (General MIDI practice).
    public let bank: Int
    /// The MIDI program, 0…127.
    public let program: Int
    /// Where its zones are in the font's zone table.
    let zones: Range<Int>

    /// `000:000 Yamaha Grand Piano`: bank and program, then the name.
    public var description: String {
        func padded(_ value: Int) -> String {
            String(repeating: "0", count: max(0, 3 - String(value).count)) + "\(value)"
        }
        return "\(padded(bank)):\(padded(program)) \(name)"
    }
}
