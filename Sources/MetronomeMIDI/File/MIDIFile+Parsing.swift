extension MIDIFile {
    /// Reads a Standard MIDI File from its bytes: the MThd header, then as many MTrk chunks as the header counts.
    ///
    /// Chunks of other types before the last track are skipped by their length; bytes after the last track are
    /// ignored. Every size is checked against the bytes left, every number the file gives is checked before use,
    /// and nothing is allocated beyond what the bytes hold, so no input can trap; what is wrong throws. Within a
    /// track: running status, cancelled by meta and sysex events as the SMF 1.0 specification says; sysex events
    /// and meta events of types not kept (sequence number, channel prefix, port, SMPTE offset, sequencer-specific,
    /// text types above 0x09) are skipped by their length. A track chunk that ends without an end of track is
    /// accepted, as common players do: the end of track is added at the tick of its last event.
    /// - Parameter bytes: the whole file.
    /// - Throws: `MIDIFileError` at the first malformed field, naming what was expected and what was found; for
    ///   format 2 files, which are not supported.
    /// - Complexity: O(n), n the bytes.
    public init(parsing bytes: [UInt8]) throws(MIDIFileError) {
        var reader = MIDIByteReader(bytes)
        let headerStart = reader.offset
        guard reader.remaining >= 4 else {
            throw MIDIFileError(offset: headerStart, message: "expected an \"MThd\" chunk, found the end of the data")
        }
        let tag = bytes[0..<4]
        guard tag.elementsEqual("MThd".utf8) else {
            throw MIDIFileError(
                offset: headerStart,
                message: "expected an \"MThd\" chunk, found \(MIDIByteReader.describeTag(tag))")
        }
        reader.offset = 4
        let lengthOffset = reader.offset
        let length = Int(try reader.bigEndian(4, "the header chunk's length"))
        guard length >= 6 else {
            throw MIDIFileError(
                offset: lengthOffset, message: "the header chunk says \(length) bytes; a header needs at least 6")
        }
        guard length <= reader.remaining else {
            throw MIDIFileError(
                offset: lengthOffset,
                message: "the header chunk says \(length) bytes but only \(reader.remaining) remain")
        }
        let headerEnd = reader.offset + length
        let formatOffset = reader.offset
        let formatNumber = try reader.bigEndian(2, "the format")
        guard let format = MIDIFileFormat(rawValue: UInt16(formatNumber)) else {
            throw MIDIFileError(
                offset: formatOffset,
                message: formatNumber == 2
                    ? "format 2 (independent sequences) is not supported; formats 0 and 1 are"
                    : "expected format 0 or 1, found \(formatNumber)")
        }
        let trackCount = Int(try reader.bigEndian(2, "the track count"))
        let division = try MIDIFile.division(&reader)
        reader.offset = headerEnd
        var tracks: [MIDITrack] = []
        var firstUnknownChunk: (offset: Int, tag: String)?
        while tracks.count < trackCount {
            let chunkStart = reader.offset
            guard reader.remaining >= 8 else {
                if let firstUnknownChunk {
                    throw MIDIFileError(
                        offset: firstUnknownChunk.offset,
                        message: "expected an \"MTrk\" chunk, found \(firstUnknownChunk.tag)")
                }
                let found = reader.remaining == 0 ? "the end of the data" : "only \(reader.remaining) bytes"
                throw MIDIFileError(
                    offset: chunkStart,
                    message: "expected an \"MTrk\" chunk (track \(tracks.count + 1) of \(trackCount)), found \(found)")
            }
            let chunkTag = bytes[chunkStart..<(chunkStart + 4)]
            let tagText = MIDIByteReader.describeTag(chunkTag)
            guard tagText.hasPrefix("\"") else {
                throw MIDIFileError(offset: chunkStart, message: "expected an \"MTrk\" chunk, found \(tagText)")
            }
            reader.offset += 4
            let sizeOffset = reader.offset
            let size = Int(try reader.bigEndian(4, "a chunk length"))
            let kind = chunkTag.elementsEqual("MTrk".utf8) ? "the track chunk" : "the \(tagText) chunk"
            guard size <= reader.remaining else {
                throw MIDIFileError(
                    offset: sizeOffset, message: "\(kind) says \(size) bytes but only \(reader.remaining) remain")
            }
            let bodyEnd = reader.offset + size
            if chunkTag.elementsEqual("MTrk".utf8) {
                var trackReader = reader
                trackReader.end = bodyEnd
                trackReader.region = "the track chunk"
                tracks.append(try MIDIFile.track(&trackReader))
            } else if firstUnknownChunk == nil {
                firstUnknownChunk = (chunkStart, tagText)
            }
            reader.offset = bodyEnd
        }
        self.init(format: format, division: division, tracks: tracks)
    }

    /// The header's division field.
    private static func division(_ reader: inout MIDIByteReader) throws(MIDIFileError) -> MIDIDivision {
        let start = reader.offset
        let value = try reader.bigEndian(2, "the division")
        if value & 0x8000 == 0 {
            guard value > 0 else {
                throw MIDIFileError(offset: start, message: "expected 1 to 32767 ticks per quarter note, found 0")
            }
            return .ticksPerQuarter(Int(value))
        }
        let frames = -Int(Int8(bitPattern: UInt8(value >> 8)))
        guard MIDIDivision.smpteFrameRates.contains(frames) else {
            throw MIDIFileError(
                offset: start, message: "expected SMPTE frames per second of 24, 25, 29 or 30, found \(frames)")
        }
        let ticks = Int(value & 0xFF)
        guard ticks > 0 else {
            throw MIDIFileError(offset: start + 1, message: "expected 1 to 255 ticks per SMPTE frame, found 0")
        }
        return .smpte(framesPerSecond: frames, ticksPerFrame: ticks)
    }
}
