import MetronomeSoundFont

/// Builds a valid SoundFont 2 file (or SF3, with Ogg Vorbis samples) as bytes, from a short description:
///
/// ```swift
/// let bytes = SoundFontBuilder()
///     .sample("sine", frames: sine, rate: 48000, key: 69, loop: 10..<110)
///     .instrument("Sine", .sample("sine", [.attackVolumeEnvelope: -1200, .sampleModes: 1]))
///     .preset("Sine", bank: 0, program: 0, instrument: "Sine")
///     .build()
/// let font = try SoundFont(bytes: bytes)
/// ```
///
/// Samples are laid out one after another in the smpl chunk, each followed by 46 zero frames (§6.1); zones are
/// written in the order given, ranges first, then generators, then the instrument or sample generator (§7.5, §7.9).
/// `chunkOffset(_:in:)` finds a chunk in the result, for tests that break one on purpose.
public struct SoundFontBuilder: Sendable {
    struct Sample: Sendable {
        let name: String
        let frames: [Int16]
        let low: [UInt8]?
        let ogg: [UInt8]?
        let rate: Int
        let key: Int
        let correction: Int
        let loop: Range<Int>
        let type: UInt16
        let link: String?
    }

    struct ZoneList: Sendable {
        let name: String
        let bank: Int
        let program: Int
        let zones: [SoundFontBuilderZone]
    }

    var name: String
    var version: SoundFontVersion?
    var samples: [Sample] = []
    var instruments: [ZoneList] = []
    var presets: [ZoneList] = []

    /// An empty font.
    /// - Parameters:
    ///   - name: the INFO name (INAM).
    ///   - version: the ifil version; by default 2.04, or 3.01 when a sample is compressed.
    public init(name: String = "Test Font", version: SoundFontVersion? = nil) {
        self.name = name
        self.version = version
    }

    /// Adds a sample of 16-bit frames.
    /// - Parameters:
    ///   - name: how zones name it (at most 20 bytes are written).
    ///   - frames: the frames.
    ///   - low: the low bytes of 24-bit frames (written to sm24; samples without them get zeros there).
    ///   - rate: frames per second.
    ///   - key: the original key (MIDI key at which it plays unshifted).
    ///   - correction: pitch correction, cents.
    ///   - loop: loop start and end (one past the last loop frame), from the sample's first frame.
    ///   - type: sfSampleType: 1 mono, 2 right, 4 left, 8 linked (0x8000 ROM).
    ///   - link: the other sample of a stereo pair.
    public func sample(
        _ name: String, frames: [Int16], low: [UInt8]? = nil, rate: Int = 48000, key: Int = 60, correction: Int = 0,
        loop: Range<Int>? = nil, type: UInt16 = 1, link: String? = nil
    ) -> SoundFontBuilder {
        var copy = self
        copy.samples.append(
            Sample(
                name: name, frames: frames, low: low, ogg: nil, rate: rate, key: key, correction: correction,
                loop: loop ?? 0..<0, type: type, link: link))
        return copy
    }

    /// Adds an SF3 sample: Ogg Vorbis bytes, with sampleType bit 0x10; start and end are written as byte offsets
    /// of the stream in the smpl chunk, the loop relative to the decoded sample's first frame.
    /// - Parameters: as `sample(_:frames:…)`, with the compressed stream instead of frames.
    public func compressedSample(
        _ name: String, ogg: [UInt8], rate: Int = 48000, key: Int = 60, loop: Range<Int>? = nil, type: UInt16 = 1
    ) -> SoundFontBuilder {
        var copy = self
        copy.samples.append(
            Sample(
                name: name, frames: [], low: nil, ogg: ogg, rate: rate, key: key, correction: 0, loop: loop ?? 0..<0,
                type: type | 0x10, link: nil))
        return copy
    }

    /// Adds an instrument.
    /// - Parameters:
    ///   - name: how preset zones name it.
    ///   - zones: its zones, a global one first if any.
    public func instrument(_ name: String, _ zones: SoundFontBuilderZone...) -> SoundFontBuilder {
        instrument(name, zones: zones)
    }

    /// Adds an instrument whose zones are computed (many of them, say).
    public func instrument(_ name: String, zones: [SoundFontBuilderZone]) -> SoundFontBuilder {
        var copy = self
        copy.instruments.append(ZoneList(name: name, bank: 0, program: 0, zones: zones))
        return copy
    }

    /// Adds a preset of one zone playing `instrument`.
    public func preset(_ name: String, bank: Int = 0, program: Int, instrument: String) -> SoundFontBuilder {
        preset(name, bank: bank, program: program, .instrument(instrument))
    }

    /// Adds a preset.
    /// - Parameters:
    ///   - name: its name.
    ///   - bank: the MIDI bank (128 for drum kits).
    ///   - program: the MIDI program.
    ///   - zones: its zones, a global one first if any.
    public func preset(
        _ name: String, bank: Int = 0, program: Int, _ zones: SoundFontBuilderZone...
    ) -> SoundFontBuilder {
        preset(name, bank: bank, program: program, zones: zones)
    }

    /// Adds a preset whose zones are computed.
    public func preset(_ name: String, bank: Int = 0, program: Int, zones: [SoundFontBuilderZone]) -> SoundFontBuilder {
        var copy = self
        copy.presets.append(ZoneList(name: name, bank: bank, program: program, zones: zones))
        return copy
    }

    /// The header offset of the first chunk named `id` (a LIST's type also matches: its LIST header), searching
    /// the RIFF tree; `nil` when there is none.
    public static func chunkOffset(_ id: String, in bytes: [UInt8]) -> Int? {
        func search(_ start: Int, _ end: Int) -> Int? {
            var offset = start
            while offset + 8 <= end {
                let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                let size =
                    Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                    | Int(bytes[offset + 7]) << 24
                let listType =
                    offset + 12 <= end ? String(decoding: bytes[offset + 8..<offset + 12], as: UTF8.self) : ""
                if fourCC == id || (fourCC == "LIST" && listType == id) { return offset }
                if fourCC == "LIST", let found = search(offset + 12, min(end, offset + 8 + size)) { return found }
                offset += 8 + size + size % 2
            }
            return nil
        }
        return search(12, bytes.count)
    }
}
