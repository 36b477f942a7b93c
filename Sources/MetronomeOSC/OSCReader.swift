/// Reads OSC items from a packet's bytes, checking every length against the end of the enclosing item before any
/// byte is touched, so no input can trap.
///
/// `position` is always a multiple of 4 from the start of the packet, and so is every `end` passed in: the packet
/// size and every bundle element size are checked to be multiples of 4 before they are used.
struct OSCReader {
    /// `#bundle` and its terminating NUL: the first 8 bytes of every bundle.
    static let bundleHeader: [UInt8] = Array("#bundle".utf8) + [0]

    private let bytes: [UInt8]
    private var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads the message or bundle filling `position ..< end` (at least 4 bytes); `depth` counts enclosing bundles.
    mutating func readPacket(end: Int, depth: Int) throws(OSCError) -> OSCPacket {
        let start = position
        if bytes[start] == UInt8(ascii: "/") { return .message(try readMessage(end: end)) }
        if end - start >= 8 && bytes[start..<start + 8].elementsEqual(Self.bundleHeader) {
            return .bundle(try readBundle(end: end, depth: depth))
        }
        throw .unknownPacketStart(byte: bytes[start], offset: start)
    }

    private mutating func readBundle(end: Int, depth: Int) throws(OSCError) -> OSCBundle {
        let start = position
        if depth >= OSCPacket.maximumBundleDepth {
            throw .bundleTooDeep(offset: start, limit: OSCPacket.maximumBundleDepth)
        }
        position += 8
        let timeTag = OSCTimeTag(rawValue: try readUInt64("bundle time tag", end: end))
        var elements: [OSCPacket] = []
        while position < end {
            let sizeOffset = position
            let size = Int(Int32(bitPattern: try readUInt32("bundle element size", end: end)))
            if size <= 0 || size % 4 != 0 { throw .bundleElementSizeInvalid(offset: sizeOffset, size: size) }
            if size > end - position {
                throw .bundleElementTooLong(offset: sizeOffset, claimed: size, remaining: end - position)
            }
            elements.append(try readPacket(end: position + size, depth: depth + 1))
        }
        return OSCBundle(timeTag: timeTag, elements)
    }

    private mutating func readMessage(end: Int) throws(OSCError) -> OSCMessage {
        let start = position
        let address = try readString(end: end)
        if position == end { return OSCMessage(address) }
        let tagsOffset = position
        if bytes[tagsOffset] != UInt8(ascii: ",") { throw .missingTypeTags(offset: tagsOffset) }
        let tags = try readStringBytes(end: end).dropFirst()
        for (index, tag) in tags.enumerated() where !Self.knownTags.contains(tag) {
            throw .unknownTypeTag(tag, offset: tagsOffset + 1 + index)
        }
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(tags.count)
        for tag in tags {
            arguments.append(try readArgument(tag, end: end))
        }
        if position != end { throw .trailingBytes(offset: start, byteOffset: position, count: end - position) }
        return OSCMessage(address, arguments)
    }

    private static let knownTags = Set("ifsbhdtcTFNIS".utf8)

    private mutating func readArgument(_ tag: UInt8, end: Int) throws(OSCError) -> OSCArgument {
        switch tag {
        case UInt8(ascii: "i"): return .int32(Int32(bitPattern: try readUInt32("int32 argument", end: end)))
        case UInt8(ascii: "f"): return .float32(Float(bitPattern: try readUInt32("float32 argument", end: end)))
        case UInt8(ascii: "s"): return .string(try readString(end: end))
        case UInt8(ascii: "S"): return .symbol(try readString(end: end))
        case UInt8(ascii: "b"): return .blob(try readBlob(end: end))
        case UInt8(ascii: "h"): return .int64(Int64(bitPattern: try readUInt64("int64 argument", end: end)))
        case UInt8(ascii: "d"): return .float64(Double(bitPattern: try readUInt64("float64 argument", end: end)))
        case UInt8(ascii: "t"): return .timeTag(OSCTimeTag(rawValue: try readUInt64("time tag argument", end: end)))
        case UInt8(ascii: "c"):
            let offset = position
            let value = try readUInt32("char argument", end: end)
            guard let byte = UInt8(exactly: value) else { throw .charOutOfRange(value: value, offset: offset) }
            return .char(byte)
        case UInt8(ascii: "T"): return .bool(true)
        case UInt8(ascii: "F"): return .bool(false)
        case UInt8(ascii: "N"): return .null
        default: return .impulse  // "I": readMessage let only known tags through.
        }
    }

    private mutating func readString(end: Int) throws(OSCError) -> String {
        let start = position
        let utf8 = try readStringBytes(end: end)
        guard let string = String(validating: utf8, as: UTF8.self) else { throw .stringNotUTF8(offset: start) }
        return string
    }

    /// The bytes before the terminating NUL; moves past the NUL and its zero padding.
    private mutating func readStringBytes(end: Int) throws(OSCError) -> ArraySlice<UInt8> {
        let start = position
        guard let terminator = bytes[start..<end].firstIndex(of: 0) else { throw .stringNotTerminated(offset: start) }
        let paddedEnd = start + (terminator - start + 4) / 4 * 4
        guard paddedEnd <= end else { throw .stringNotTerminated(offset: start) }
        if let stray = bytes[terminator..<paddedEnd].firstIndex(where: { $0 != 0 }) {
            throw .stringPaddingNotZero(offset: start, byteOffset: stray)
        }
        position = paddedEnd
        return bytes[start..<terminator]
    }

    private mutating func readBlob(end: Int) throws(OSCError) -> [UInt8] {
        let start = position
        let size = Int(Int32(bitPattern: try readUInt32("blob size", end: end)))
        if size < 0 { throw .blobSizeNegative(offset: start, size: size) }
        let paddedEnd = position + (size + 3) / 4 * 4
        if paddedEnd > end { throw .blobTooLong(offset: start, claimed: size, remaining: end - position) }
        let dataEnd = position + size
        if let stray = bytes[dataEnd..<paddedEnd].firstIndex(where: { $0 != 0 }) {
            throw .blobPaddingNotZero(offset: start, byteOffset: stray)
        }
        defer { position = paddedEnd }
        return Array(bytes[position..<dataEnd])
    }

    private mutating func readUInt32(_ item: String, end: Int) throws(OSCError) -> UInt32 {
        try readBigEndian(item, end: end)
    }

    private mutating func readUInt64(_ item: String, end: Int) throws(OSCError) -> UInt64 {
        try readBigEndian(item, end: end)
    }

    /// A big-endian unsigned integer of the type's width.
    private mutating func readBigEndian<Value: FixedWidthInteger & UnsignedInteger>(
        _ item: String, end: Int
    ) throws(OSCError) -> Value {
        let width = Value.bitWidth / 8
        guard end - position >= width else {
            throw .truncated(item: item, offset: position, needed: width, remaining: end - position)
        }
        var value: Value = 0
        for byte in bytes[position..<position + width] { value = value << 8 | Value(byte) }
        position += width
        return value
    }
}
