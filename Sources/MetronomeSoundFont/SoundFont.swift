/// A SoundFont 2.04 bank (or SF3, with Ogg Vorbis samples a caller decodes), read from bytes in memory and ready
/// to play: every preset's zones merged with their instruments' into `SoundFontVoiceZone`s once, at load.
///
/// Samples are used in place: a zone's `data` points into the font's own smpl chunk (the file mapped into memory,
/// so a 148 MB font costs only the pages a voice touches), `low` into sm24. SF3's compressed samples are decoded at
/// load, through the caller's decoder, into one buffer the font owns.
///
/// Where the specification leaves room, or common fonts stray, the reader decides (each is tested):
/// - Rejected: anything §7 calls structurally unsound — a chunk beyond its parent, a hydra chunk that is not whole
///   records or lacks its terminal record, indices out of range or running backwards, terminal records that do
///   not meet, an instrument or sample index at or past the terminal record, a sample (start, end, loop points)
///   outside the sample data.
/// - Ignored: unknown chunks and generators, generators after a zone's instrument or sampleID, ranges out of their
///   place, zones after the first without an instrument or sample, sm24 below 2.04 or of the wrong size, the
///   sample link of stereo pairs (not checked: the voice zone does not carry it), loop points outside a sample's
///   own start and end (the synthesizer plays a loop only where it is sane).
/// - ROM samples (sampleType bit 0x8000) have no data here: their zones make no voice. A voice zone's
///   `sampleType` keeps bits 0…3 (mono, right, left, linked), without the ROM and compressed bits.
/// - A preset or instrument list of only the terminal record is an empty font, not an error.
///
/// Invariant: the zone table, the modulator table and the decoded samples are written once, in `init`, and only
/// read afterwards; they, and the bytes `owner` keeps alive, are freed when the font goes. A voice zone is valid as
/// long as its font lives: whoever plays one keeps the font.
public final class SoundFont: @unchecked Sendable {
    // @unchecked: every stored property is immutable after `init`; the memory behind the pointers is written only
    // in `init` and freed only in `deinit`, when no other reference (and so no other thread) remains.

    /// Decodes one compressed (SF3) sample: its Ogg Vorbis bytes in, its mono 16-bit frames out — at most
    /// `maximumFrames` of them (returning more fails the load), or `nil` when the bytes do not decode.
    public typealias CompressedSampleDecoder = (_ oggVorbis: UnsafeRawBufferPointer, _ maximumFrames: Int) -> [Int16]?

    /// The most voice zones a font may make: 262,144 (about 85 MB of zones). FluidR3_GM makes about 4,000.
    public static let maximumVoiceZones = 1 << 18
    /// The most modulator records the zones may need before identical lists are shared: 4,194,304 (40 MB).
    public static let maximumModulators = 1 << 22
    /// The most frames a font's compressed samples may decode to, all together: 2²⁷ (256 MB of 16-bit frames).
    public static let maximumDecodedFrames = 1 << 27

    /// The INFO list's name (INAM), or "" when the font has none.
    public let name: String
    /// The format version (ifil): 2.x, or 3.x for SF3.
    public let version: SoundFontVersion
    /// Every preset, sorted by bank, then program, then the font's order (a font may repeat a bank and program;
    /// lookups use the first).
    public let presets: [SoundFontPreset]
    /// How many voice zones the presets make, all together.
    public let zoneCount: Int

    private let owner: AnyObject?
    private let zoneTable: UnsafeMutablePointer<SoundFontVoiceZone>
    private let modulatorTable: UnsafeMutablePointer<SoundFontModulator>
    private let decoded: UnsafeMutableBufferPointer<Int16>?
    /// `bank << 16 | program` → index in `presets`, the first of each pair.
    let index: [Int: Int]

    /// Reads a font.
    /// - Parameters:
    ///   - bytes: the whole file; it must stay in place, unchanged, as long as the font lives.
    ///   - owner: keeps `bytes` alive (the mapping of the file, or the storage of an array); held until the font goes.
    ///   - decodeCompressed: decodes SF3's Ogg Vorbis samples; without it, a font with a compressed sample fails.
    /// - Throws: `SoundFontError`, with the byte offset and what was expected, for anything malformed: the RIFF
    ///   structure, a chunk size, a missing terminal record, an index out of range, a sample outside the sample
    ///   data, a compressed sample that does not decode, or more zones than `maximumVoiceZones`.
    /// - Complexity: O(n + z) for n bytes of hydra and z merged zones; the sample data is not read (except the
    ///   compressed samples, which are decoded).
    public init(
        bytes: UnsafeRawBufferPointer, owner: AnyObject?, decodeCompressed: CompressedSampleDecoder? = nil
    ) throws(SoundFontError) {
        let reader = SoundFontBytes(buffer: bytes)
        let layout = try SoundFontLayout(reader)
        let hydra = try SoundFontHydra(reader, layout)
        let samples = try SoundFontSamples(reader, layout, hydra.samples, decoder: decodeCompressed)
        let builder: SoundFontZoneBuilder
        do { builder = try SoundFontZoneBuilder(hydra, samples) } catch {
            samples.decoded?.deallocate()
            throw error
        }
        name = layout.name
        version = layout.version
        self.owner = owner
        decoded = samples.decoded
        // Allocated for the most the merge can write; the pages of what empty range intersections leave unused
        // are never touched.
        modulatorTable = .allocate(capacity: max(builder.modulatorCapacity, 1))
        zoneTable = .allocate(capacity: max(builder.zoneCapacity, 1))
        let (count, presetZones) = builder.write(zones: zoneTable, modulators: modulatorTable)
        zoneCount = count
        let unsorted = hydra.presets.enumerated().map { index, list in
            SoundFontPreset(
                name: list.name, bank: list.bank, program: list.program, zones: presetZones[index])
        }
        presets = unsorted.enumerated().sorted { a, b in
            (a.element.bank, a.element.program, a.offset) < (b.element.bank, b.element.program, b.offset)
        }.map(\.element)
        var index: [Int: Int] = [:]
        for (position, preset) in presets.enumerated() where index[preset.bank << 16 | preset.program] == nil {
            index[preset.bank << 16 | preset.program] = position
        }
        self.index = index
    }

    /// Reads a font from an array (tests, fonts built in memory), copied once into storage the font owns.
    /// - Throws: as `init(bytes:owner:decodeCompressed:)`.
    public convenience init(bytes: [UInt8], decodeCompressed: CompressedSampleDecoder? = nil) throws(SoundFontError) {
        let storage = SoundFontByteStorage(bytes)
        try self.init(
            bytes: UnsafeRawBufferPointer(rebasing: storage.bytes[0..<bytes.count]), owner: storage,
            decodeCompressed: decodeCompressed)
    }

    deinit {
        zoneTable.deinitialize(count: zoneCount)
        zoneTable.deallocate()
        modulatorTable.deallocate()
        decoded?.deallocate()
    }

    /// Every voice zone of `preset`, in the font's order (preset zones, then each one's instrument zones).
    /// - Parameter preset: a preset of this font (from `presets` or `preset(bank:program:)`).
    /// - Returns: the zones, valid while the font lives.
    /// - Complexity: O(1).
    public func zones(of preset: SoundFontPreset) -> UnsafeBufferPointer<SoundFontVoiceZone> {
        let range = preset.zones.clamped(to: 0..<zoneCount)
        return UnsafeBufferPointer(start: zoneTable + range.lowerBound, count: range.count)
    }
}
