#if !_endian(little)
    // Sample data is used in place as `Int16`: the file's 16-bit little-endian words must be the machine's own.
    #error("SoundFont samples are read in place as little-endian Int16; this platform is big-endian")
#endif

/// Little-endian reads from a font's bytes. Every caller has checked the range against `count` first (chunks are
/// checked against their parents, records against their chunk), so no read here can leave the buffer.
struct SoundFontBytes {
    let buffer: UnsafeRawBufferPointer

    var count: Int { buffer.count }

    func uint8(_ offset: Int) -> UInt8 { buffer[offset] }

    func int8(_ offset: Int) -> Int8 { Int8(bitPattern: buffer[offset]) }

    func uint16(_ offset: Int) -> UInt16 { UInt16(buffer[offset]) | UInt16(buffer[offset + 1]) << 8 }

    func int16(_ offset: Int) -> Int16 { Int16(bitPattern: uint16(offset)) }

    func uint32(_ offset: Int) -> UInt32 { UInt32(uint16(offset)) | UInt32(uint16(offset + 2)) << 16 }

    /// Four bytes as a quoted chunk identifier for messages: `"RIFF"`, with bytes outside printable ASCII as `\xNN`.
    func quotedID(_ offset: Int) -> String {
        var text = "\""
        for index in offset..<min(offset + 4, count) {
            let byte = buffer[index]
            if (0x20..<0x7F).contains(byte) && byte != 0x22 && byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (byte < 16 ? "0" : "") + hex
            }
        }
        return text + "\""
    }

    /// Whether the four bytes at `offset` spell `id` (ASCII).
    func matches(_ id: StaticString, at offset: Int) -> Bool {
        guard offset >= 0, offset + 4 <= count else { return false }
        let pointer = id.utf8Start
        for index in 0..<4 where buffer[offset + index] != pointer[index] { return false }
        return true
    }

    /// A fixed-size name field (20 bytes in the hydra, at most 256 in INFO): the bytes before the first NUL, as
    /// UTF-8 with invalid sequences replaced, trailing spaces removed.
    func name(_ offset: Int, length: Int) -> String {
        var end = offset
        let limit = min(offset + length, count)
        while end < limit && buffer[end] != 0 { end += 1 }
        while end > offset && buffer[end - 1] == 0x20 { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<end]), as: UTF8.self)
    }
}
