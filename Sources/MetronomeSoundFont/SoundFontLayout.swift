/// A chunk found in the file: where its header starts, where its data starts, and how many data bytes it has.
struct SoundFontChunk {
    let headerOffset: Int
    let dataOffset: Int
    let size: Int
    var end: Int { dataOffset + size }
}

/// The RIFF structure of a SoundFont (§3–§6): the INFO list's version and name, the sample data chunks and the nine
/// hydra chunks, each checked to lie inside its parent. Chunk sizes are 32-bit, so every offset sum here stays far
/// below `Int.max`.
struct SoundFontLayout {
    /// The hydra's chunks in the order §7 lists them, with their record sizes.
    static let hydra: [(id: StaticString, recordSize: Int)] = [
        ("phdr", 38), ("pbag", 4), ("pmod", 10), ("pgen", 4), ("inst", 22), ("ibag", 4), ("imod", 10),
        ("igen", 4), ("shdr", 46),
    ]

    var version = SoundFontVersion(major: 2, minor: 1)
    var name = ""
    /// The 16-bit sample data (or, in SF3, the concatenated Ogg streams); empty at the sdta list when absent.
    var smpl: SoundFontChunk
    /// The low bytes of 24-bit samples, kept only when the version is 2.04 or later and its size matches smpl's.
    var sm24: SoundFontChunk?
    /// The hydra chunks, in `hydra`'s order.
    var chunks: [SoundFontChunk]

    /// Reads the structure.
    /// - Throws: `SoundFontError` for a missing or misplaced chunk, a size beyond its parent, an unsupported
    ///   version or a hydra chunk whose size is not a whole, non-zero number of records.
    init(_ bytes: SoundFontBytes) throws(SoundFontError) {
        guard bytes.count >= 12 else {
            throw SoundFontError(offset: 0, "expected a RIFF file of at least 12 bytes, found \(bytes.count) bytes")
        }
        guard bytes.matches("RIFF", at: 0) else {
            throw SoundFontError(offset: 0, "expected \"RIFF\", found \(bytes.quotedID(0))")
        }
        let riffSize = Int(bytes.uint32(4))
        guard 8 + riffSize <= bytes.count else {
            throw SoundFontError(
                offset: 4, "the RIFF chunk is \(riffSize) bytes but the file holds \(bytes.count - 8) after its header")
        }
        guard riffSize >= 4, bytes.matches("sfbk", at: 8) else {
            throw SoundFontError(offset: 8, "expected \"sfbk\", found \(bytes.quotedID(8))")
        }
        var lists: [String: SoundFontChunk] = [:]
        for chunk in try Self.children(bytes, from: 12, to: 8 + riffSize, parent: "RIFF") {
            guard bytes.matches("LIST", at: chunk.headerOffset) else { continue }
            guard chunk.size >= 4 else {
                throw SoundFontError(offset: chunk.headerOffset, "a LIST chunk of \(chunk.size) bytes has no type")
            }
            for type in ["INFO", "sdta", "pdta"] where bytes.name(chunk.dataOffset, length: 4) == type {
                guard lists[type] == nil else {
                    throw SoundFontError(offset: chunk.headerOffset, "a second \"\(type)\" list")
                }
                lists[type] = chunk
            }
        }
        for type in ["INFO", "sdta", "pdta"] where lists[type] == nil {
            throw SoundFontError(offset: 8, "the sfbk form has no \"\(type)\" list")
        }
        let info = lists["INFO"]!
        let sdta = lists["sdta"]!
        let pdta = lists["pdta"]!
        smpl = SoundFontChunk(headerOffset: sdta.headerOffset, dataOffset: sdta.dataOffset + 4, size: 0)
        chunks = []
        try readInfo(bytes, info)
        try readSampleData(bytes, sdta)
        try readHydra(bytes, pdta)
    }

    private mutating func readInfo(_ bytes: SoundFontBytes, _ info: SoundFontChunk) throws(SoundFontError) {
        var foundVersion = false
        for chunk in try Self.children(bytes, from: info.dataOffset + 4, to: info.end, parent: "INFO") {
            if bytes.matches("ifil", at: chunk.headerOffset) {
                guard chunk.size == 4 else {
                    throw SoundFontError(offset: chunk.headerOffset, "the ifil chunk is \(chunk.size) bytes, not 4")
                }
                version = SoundFontVersion(
                    major: Int(bytes.uint16(chunk.dataOffset)), minor: Int(bytes.uint16(chunk.dataOffset + 2)))
                guard version.major == 2 || version.major == 3 else {
                    throw SoundFontError(
                        offset: chunk.dataOffset, "expected SoundFont version 2.x or 3.x, found \(version)")
                }
                foundVersion = true
            } else if bytes.matches("INAM", at: chunk.headerOffset) {
                name = bytes.name(chunk.dataOffset, length: min(chunk.size, 256))
            }
        }
        guard foundVersion else {
            throw SoundFontError(offset: info.headerOffset, "the INFO list has no \"ifil\" chunk (the format version)")
        }
    }

    private mutating func readSampleData(_ bytes: SoundFontBytes, _ sdta: SoundFontChunk) throws(SoundFontError) {
        var low: SoundFontChunk?
        for chunk in try Self.children(bytes, from: sdta.dataOffset + 4, to: sdta.end, parent: "sdta") {
            if bytes.matches("smpl", at: chunk.headerOffset) {
                smpl = chunk
            } else if bytes.matches("sm24", at: chunk.headerOffset) {
                low = chunk
            }
        }
        // §6.2: sm24 is ignored below version 2.04, and when its size is not the smpl chunk's frame count (padded
        // to an even number of bytes).
        let frames = smpl.size / 2
        if let low, version.major == 2, version.minor >= 4, low.size == frames || low.size == frames + frames % 2 {
            sm24 = low
        }
    }

    private mutating func readHydra(_ bytes: SoundFontBytes, _ pdta: SoundFontChunk) throws(SoundFontError) {
        let found = try Self.children(bytes, from: pdta.dataOffset + 4, to: pdta.end, parent: "pdta")
        for (id, recordSize) in Self.hydra {
            guard let chunk = found.first(where: { bytes.matches(id, at: $0.headerOffset) }) else {
                throw SoundFontError(offset: pdta.headerOffset, "the pdta list has no \"\(id)\" chunk")
            }
            guard chunk.size % recordSize == 0 else {
                throw SoundFontError(
                    offset: chunk.headerOffset,
                    "the \(id) chunk is \(chunk.size) bytes, not a multiple of \(recordSize)")
            }
            guard chunk.size > 0 else {
                throw SoundFontError(
                    offset: chunk.headerOffset, "the \(id) chunk is empty; it must end with a terminal record")
            }
            chunks.append(chunk)
        }
    }

    /// The chunks between `start` and `end`, each inside that range. A missing pad byte after the last chunk is
    /// forgiven (some writers leave it out).
    static func children(
        _ bytes: SoundFontBytes, from start: Int, to end: Int, parent: String
    ) throws(SoundFontError) -> [SoundFontChunk] {
        var result: [SoundFontChunk] = []
        var offset = start
        while offset < end {
            guard end - offset >= 8 else {
                throw SoundFontError(
                    offset: offset,
                    "a chunk header needs 8 bytes but the \(parent) chunk has \(end - offset) left")
            }
            let size = Int(bytes.uint32(offset + 4))
            guard size <= end - offset - 8 else {
                throw SoundFontError(
                    offset: offset,
                    "the \(bytes.quotedID(offset)) chunk is \(size) bytes but the \(parent) chunk has "
                        + "\(end - offset - 8) left")
            }
            result.append(SoundFontChunk(headerOffset: offset, dataOffset: offset + 8, size: size))
            offset += 8 + size + size % 2
        }
        return result
    }
}
