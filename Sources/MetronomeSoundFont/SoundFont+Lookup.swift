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

extension SoundFontVoiceZone {
    /// Reads a byte of every memory page of the frames a voice of this zone plays (its start to its end, the loop
    /// inside), so that the render thread never takes the page fault — or waits for the disk — of a mapped font's
    /// sample it touches first. Scheduling thread, before the voice's command is pushed (the lookahead ahead of the
    /// mixer). Returns the bytes' sum, for the caller to keep, so that the reads are not optimised away.
    package func touchSamplePages() -> UInt8 {
        let first = max(0, start - 1)
        let last = min(dataFrameCount, end + 2)
        guard last > first else { return 0 }
        var sum: UInt8 = 0
        func touch(_ base: UnsafeRawPointer, bytes: Int) {
            for offset in stride(from: 0, to: bytes, by: SoundFontVoiceZone.pageBytes) {
                sum &+= base.load(fromByteOffset: offset, as: UInt8.self)
            }
            sum &+= base.load(fromByteOffset: bytes - 1, as: UInt8.self)
        }
        touch(UnsafeRawPointer(data + first), bytes: (last - first) * 2)
        if let low { touch(UnsafeRawPointer(low + first), bytes: last - first) }
        return sum
    }

    /// The smallest memory page Linux uses; touching at this stride reaches every page of larger ones too.
    static let pageBytes = 4096
}
