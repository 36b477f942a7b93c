extension SoundFont {
    /// The preset a MIDI channel with this bank and program plays, with the fallbacks General MIDI players use:
    ///
    /// 1. the preset with this bank and program (the first, if the font repeats them);
    /// 2. bank 128 (drum kits) without this program: bank 128 program 0, the standard kit;
    /// 3. another bank without this program: bank 0, the General MIDI melodic set, same program;
    /// 4. otherwise `nil` (the caller decides: silence, or a note saying so).
    ///
    /// - Parameters:
    ///   - bank: the MIDI bank (CC 0 × 128 + CC 32, or 128 for drums as the caller maps channel 10).
    ///   - program: the MIDI program, 0…127.
    /// - Returns: the preset, or `nil` when neither it nor its fallback exists.
    /// - Complexity: O(1) expected.
    public func preset(bank: Int, program: Int) -> SoundFontPreset? {
        func find(_ bank: Int, _ program: Int) -> SoundFontPreset? {
            guard (0...0xFFFF).contains(bank), (0...0xFFFF).contains(program) else { return nil }
            return index[bank << 16 | program].map { presets[$0] }
        }
        if let exact = find(bank, program) { return exact }
        if bank == 128 { return find(128, 0) }
        return find(0, program)
    }

    /// The zones that sound for a note: every zone of `preset` whose key and velocity ranges hold `key` and
    /// `velocity`, in the font's order. Called on the scheduling thread (it allocates the array).
    /// - Parameters:
    ///   - preset: a preset of this font.
    ///   - key: the MIDI key, 0…127.
    ///   - velocity: the MIDI velocity, 1…127.
    /// - Returns: pointers to the zones, valid while the font lives.
    /// - Complexity: O(z) in the preset's zones.
    public func zones(preset: SoundFontPreset, key: Int, velocity: Int) -> [UnsafePointer<SoundFontVoiceZone>] {
        let all = zones(of: preset)
        guard let base = all.baseAddress else { return [] }
        return all.indices.filter { all[$0].plays(key: key, velocity: velocity) }.map { base + $0 }
    }
}
