import MetronomeMIDI

/// Bytes of small Standard MIDI Files, and the conversions the MIDI file tests share.
enum SMF {
    /// An MThd chunk.
    static func header(format: UInt16 = 1, tracks: UInt16, division: UInt16 = 96) -> [UInt8] {
        Array("MThd".utf8) + [0, 0, 0, 6] + be16(format) + be16(tracks) + be16(division)
    }

    /// An MTrk chunk around `body`.
    static func track(_ body: [UInt8]) -> [UInt8] { chunk("MTrk", body) }

    /// A chunk of any type.
    static func chunk(_ tag: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(body.count)
        return Array(tag.utf8) + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + body
    }

    /// A whole file.
    static func file(format: UInt16 = 1, division: UInt16 = 96, _ bodies: [UInt8]...) -> [UInt8] {
        header(format: format, tracks: UInt16(bodies.count), division: division) + bodies.flatMap(track)
    }

    /// Delta 0, end of track.
    static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]

    /// Two bytes, most significant first.
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// Bytes as lower-case hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// Lower-case hexadecimal as bytes.
    static func bytes(hex text: Substring) -> [UInt8] {
        let characters = Array(text.utf8)
        return stride(from: 0, to: characters.count - 1, by: 2).map { index in
            UInt8(String(decoding: characters[index...index + 1], as: UTF8.self), radix: 16)!
        }
    }

    /// The message of the error reading `bytes` throws, as `at byte N: …`, or "no error".
    static func error(_ bytes: [UInt8]) -> String {
        do {
            _ = try MIDIFile(parsing: bytes)
            return "no error"
        } catch {
            return error.description
        }
    }
}
