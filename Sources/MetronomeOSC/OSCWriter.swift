/// Appends OSC items to a byte array: big-endian numbers, NUL-padded strings and blobs, 4-byte alignment.
struct OSCWriter {
    /// The bytes written so far; always a multiple of 4 long between items.
    private(set) var bytes: [UInt8] = []

    /// Writes a message or a bundle; `depth` counts the bundles around it.
    mutating func write(_ packet: OSCPacket, depth: Int) throws(OSCError) {
        switch packet {
        case .message(let message):
            try write(message)
        case .bundle(let bundle):
            if depth >= OSCPacket.maximumBundleDepth {
                throw .bundleTooDeep(offset: bytes.count, limit: OSCPacket.maximumBundleDepth)
            }
            bytes += OSCReader.bundleHeader
            append(bundle.timeTag.rawValue)
            for element in bundle.elements {
                let sizeOffset = bytes.count
                append(UInt32(0))
                try write(element, depth: depth + 1)
                try checkSize()
                let size = UInt32(bytes.count - sizeOffset - 4)
                for index in 0..<4 { bytes[sizeOffset + index] = UInt8(truncatingIfNeeded: size >> (24 - 8 * index)) }
            }
        }
    }

    private mutating func write(_ message: OSCMessage) throws(OSCError) {
        guard message.addressPattern.utf8.first == UInt8(ascii: "/") else {
            throw .addressNotSlash(message.addressPattern)
        }
        try append(string: message.addressPattern)
        append(string: Array(message.typeTags.utf8))
        for argument in message.arguments {
            switch argument {
            case .int32(let value): append(UInt32(bitPattern: value))
            case .float32(let value): append(value.bitPattern)
            case .string(let value), .symbol(let value): try append(string: value)
            case .blob(let value):
                if value.count > OSCPacket.maximumSize {
                    throw .packetTooLarge(size: bytes.count + value.count, limit: OSCPacket.maximumSize)
                }
                append(UInt32(value.count))
                bytes += value
                pad()
            case .int64(let value): append(UInt64(bitPattern: value))
            case .float64(let value): append(value.bitPattern)
            case .timeTag(let value): append(value.rawValue)
            case .char(let value): append(UInt32(value))
            case .bool, .null, .impulse: break
            }
            try checkSize()
        }
    }

    /// Stops early once the packet is over the limit, so a huge message is not built in full.
    private func checkSize() throws(OSCError) {
        if bytes.count > OSCPacket.maximumSize {
            throw .packetTooLarge(size: bytes.count, limit: OSCPacket.maximumSize)
        }
    }

    private mutating func append(string: String) throws(OSCError) {
        let utf8 = Array(string.utf8)
        if utf8.contains(0) { throw .stringContainsNUL(string) }
        append(string: utf8)
    }

    /// The bytes, a terminating NUL, then NULs up to a multiple of 4.
    private mutating func append(string utf8: [UInt8]) {
        bytes += utf8
        bytes.append(0)
        pad()
    }

    private mutating func pad() {
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    private mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
