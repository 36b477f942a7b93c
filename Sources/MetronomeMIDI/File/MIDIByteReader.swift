/// A cursor over the bytes of a Standard MIDI File that checks every read against an end (the data's or the
/// current chunk's) and throws `MIDIFileError` naming what it expected; it never reads past `end` or traps.
struct MIDIByteReader {
    /// The whole file.
    let bytes: [UInt8]
    /// Offset of the next byte.
    var offset: Int
    /// Offset after the last byte this reader may read.
    var end: Int
    /// Names the region `end` closes in messages: "the data" or "the track chunk".
    var region: String

    /// A reader over the whole file.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
        end = bytes.count
        region = "the data"
    }

    /// Bytes left before `end`.
    var remaining: Int { end - offset }

    /// Throws "expected WHAT, found the end of REGION" unless `count` bytes remain.
    func require(_ count: Int, for what: String) throws(MIDIFileError) {
        guard remaining >= count else {
            throw MIDIFileError(offset: offset, message: "expected \(what), found the end of \(region)")
        }
    }

    /// The next byte.
    mutating func byte(_ what: String) throws(MIDIFileError) -> UInt8 {
        try require(1, for: what)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next byte without moving, or nil at the end.
    func peek() -> UInt8? { remaining > 0 ? bytes[offset] : nil }

    /// A big-endian number of `count` (≤ 4) bytes.
    mutating func bigEndian(_ count: Int, _ what: String) throws(MIDIFileError) -> UInt32 {
        try require(count, for: what)
        var value: UInt32 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt32(bytes[index]) }
        offset += count
        return value
    }

    /// A variable-length quantity: 7 bits a byte, most significant first, the top bit set on every byte but the
    /// last; at most 4 bytes (0...0x0FFFFFFF).
    mutating func variableLength(_ what: String) throws(MIDIFileError) -> Int {
        let start = offset
        var value = 0
        for _ in 0..<4 {
            let byte = try self.byte(what)
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        throw MIDIFileError(offset: start, message: "a variable-length number longer than 4 bytes")
    }

    /// The next `count` bytes, after checking they lie before `end`.
    mutating func take(_ count: Int, sizeOf what: String) throws(MIDIFileError) -> ArraySlice<UInt8> {
        guard count <= remaining else {
            throw MIDIFileError(
                offset: offset, message: "\(what) says \(count) bytes but only \(remaining) remain in \(region)")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    /// A chunk tag as people read it: `"MTrk"` when printable ASCII, else its bytes in hexadecimal.
    static func describeTag(_ tag: ArraySlice<UInt8>) -> String {
        if tag.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "\"" + String(decoding: tag, as: UTF8.self) + "\""
        }
        return tag.map { MIDIByteReader.hex($0) }.joined(separator: " ")
    }

    /// `0x9C`.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
