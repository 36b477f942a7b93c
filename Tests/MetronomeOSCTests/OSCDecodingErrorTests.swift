import MetronomeOSC
import Testing

@Suite("OSC decoding: every error, its sentence and its byte offset")
struct OSCDecodingErrorTests {
    /// A header and time tag for bundles built by hand.
    private let bundleStart = ascii("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1]

    private func expect(
        _ bytes: [UInt8], _ error: OSCError, _ sentence: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: error, sourceLocation: sourceLocation) { try OSCPacket(decoding: bytes) }
        #expect(error.description == sentence, sourceLocation: sourceLocation)
    }

    @Test("Packet size: empty, not a multiple of 4, over the limit")
    func packetSize() {
        expect([], .packetEmpty, "packet is empty")
        expect(
            ascii("/abc\0\0\0\0,\0\0\0\0"), .packetSizeNotMultipleOfFour(size: 13),
            "packet of 13 bytes is not a multiple of 4 bytes long")
        expect(
            [UInt8](repeating: 0, count: 65_540), .packetTooLarge(size: 65_540, limit: 65_536),
            "packet of 65540 bytes is larger than the limit of 65536 bytes")
    }

    @Test("A packet starting with neither '/' nor '#bundle'")
    func unknownStart() {
        expect(
            ascii("abc\0"), .unknownPacketStart(byte: 0x61, offset: 0),
            "data at byte 0 starts with 'a', not '/' (a message) or '#bundle'")
        expect(
            [0, 0, 0, 0], .unknownPacketStart(byte: 0, offset: 0),
            "data at byte 0 starts with 0x00, not '/' (a message) or '#bundle'")
        expect(
            ascii("#bun"), .unknownPacketStart(byte: 0x23, offset: 0),
            "data at byte 0 starts with '#', not '/' (a message) or '#bundle'")
        expect(
            ascii("#bundlE\0") + [0, 0, 0, 0, 0, 0, 0, 1], .unknownPacketStart(byte: 0x23, offset: 0),
            "data at byte 0 starts with '#', not '/' (a message) or '#bundle'")
    }

    @Test("Strings: unterminated, nonzero padding, not UTF-8")
    func strings() {
        expect(ascii("/abc"), .stringNotTerminated(offset: 0), "string at byte 0 is not terminated")
        expect(ascii("/a\0\0,s\0\0abcd"), .stringNotTerminated(offset: 8), "string at byte 8 is not terminated")
        expect(
            ascii("/a\0x,\0\0\0"), .stringPaddingNotZero(offset: 0, byteOffset: 3),
            "string at byte 0 has a nonzero padding byte at byte 3")
        expect([0x2F, 0xFF, 0, 0], .stringNotUTF8(offset: 0), "string at byte 0 is not valid UTF-8")
        expect(
            ascii("/a\0\0,S\0\0") + [0x61, 0xC3, 0, 0], .stringNotUTF8(offset: 8),
            "string at byte 8 is not valid UTF-8")
    }

    @Test("Type tags: a missing ',' and an unknown tag")
    func typeTags() {
        expect(ascii("/ab\0x\0\0\0"), .missingTypeTags(offset: 4), "type tag string at byte 4 does not start with ','")
        expect(ascii("/a\0\0,ix\0\0\0\0\0"), .unknownTypeTag(0x78, offset: 6), "unknown type tag 'x' at byte 6")
        expect(ascii("/a\0\0,[]\0"), .unknownTypeTag(0x5B, offset: 5), "unknown type tag '[' at byte 5")
        expect(ascii("/a\0\0,") + [0x80, 0, 0], .unknownTypeTag(0x80, offset: 5), "unknown type tag 0x80 at byte 5")
    }

    @Test("Fixed-size arguments cut short")
    func truncatedArguments() {
        expect(
            ascii("/a\0\0,ii\0\0\0\0\u{1}"), .truncated(item: "int32 argument", offset: 12, needed: 4, remaining: 0),
            "int32 argument at byte 12 needs 4 bytes but 0 remain")
        expect(
            ascii("/a\0\0,f\0\0"), .truncated(item: "float32 argument", offset: 8, needed: 4, remaining: 0),
            "float32 argument at byte 8 needs 4 bytes but 0 remain")
        expect(
            ascii("/a\0\0,d\0\0") + [0x3F, 0xF0, 0, 0],
            .truncated(item: "float64 argument", offset: 8, needed: 8, remaining: 4),
            "float64 argument at byte 8 needs 8 bytes but 4 remain")
        expect(
            ascii("/a\0\0,h\0\0") + [0, 0, 0, 1],
            .truncated(item: "int64 argument", offset: 8, needed: 8, remaining: 4),
            "int64 argument at byte 8 needs 8 bytes but 4 remain")
        expect(
            ascii("/a\0\0,t\0\0"), .truncated(item: "time tag argument", offset: 8, needed: 8, remaining: 0),
            "time tag argument at byte 8 needs 8 bytes but 0 remain")
        expect(
            ascii("/a\0\0,c\0\0"), .truncated(item: "char argument", offset: 8, needed: 4, remaining: 0),
            "char argument at byte 8 needs 4 bytes but 0 remain")
        expect(
            ascii("/a\0\0,b\0\0"), .truncated(item: "blob size", offset: 8, needed: 4, remaining: 0),
            "blob size at byte 8 needs 4 bytes but 0 remain")
    }

    @Test("Blobs: a negative size, a size past the end, nonzero padding")
    func blobs() {
        expect(
            ascii("/a\0\0,b\0\0") + [0xFF, 0xFF, 0xFF, 0xFD], .blobSizeNegative(offset: 8, size: -3),
            "blob at byte 8 claims -3 bytes; a size cannot be negative")
        expect(
            ascii("/a\0\0,b\0\0") + [0, 0, 0x0F, 0xA0, 1, 2, 3, 4],
            .blobTooLong(offset: 8, claimed: 4000, remaining: 4), "blob at byte 8 claims 4000 bytes but 4 remain")
        expect(
            ascii("/a\0\0,b\0\0") + [0, 0, 0, 5, 1, 2, 3, 4],
            .blobTooLong(offset: 8, claimed: 5, remaining: 4), "blob at byte 8 claims 5 bytes but 4 remain")
        expect(
            ascii("/a\0\0,b\0\0") + [0x7F, 0xFF, 0xFF, 0xFF],
            .blobTooLong(offset: 8, claimed: Int(Int32.max), remaining: 0),
            "blob at byte 8 claims 2147483647 bytes but 0 remain")
        expect(
            ascii("/a\0\0,b\0\0") + [0, 0, 0, 1, 0xAA, 0xBB, 0, 0], .blobPaddingNotZero(offset: 8, byteOffset: 13),
            "blob at byte 8 has a nonzero padding byte at byte 13")
    }

    @Test("A char whose 32 bits are more than a byte")
    func charOutOfRange() {
        expect(
            ascii("/a\0\0,c\0\0") + [0, 0, 1, 0x41], .charOutOfRange(value: 321, offset: 8),
            "char at byte 8 is 321, not a byte value (0-255)")
    }

    @Test("Bytes left over after a message's arguments")
    func trailingBytes() {
        expect(
            ascii("/a\0\0,i\0\0") + [0, 0, 0, 1, 9, 9, 9, 9], .trailingBytes(offset: 0, byteOffset: 12, count: 4),
            "message at byte 0 has 4 bytes left over at byte 12")
        let element = ascii("/a\0\0,\0\0\0") + [0, 0, 0, 0]
        expect(
            bundleStart + [0, 0, 0, 12] + element, .trailingBytes(offset: 20, byteOffset: 28, count: 4),
            "message at byte 20 has 4 bytes left over at byte 28")
    }

    @Test("Bundles: a short time tag, bad element sizes, an unknown element, too deep")
    func bundles() {
        expect(
            ascii("#bundle\0") + [0, 0, 0, 1],
            .truncated(item: "bundle time tag", offset: 8, needed: 8, remaining: 4),
            "bundle time tag at byte 8 needs 8 bytes but 4 remain")
        expect(
            bundleStart + [0, 0, 0x0F, 0xA0] + ascii("/a\0\0,\0\0\0"),
            .bundleElementTooLong(offset: 16, claimed: 4000, remaining: 8),
            "bundle element at byte 16 claims 4000 bytes but 8 remain")
        expect(
            bundleStart + [0, 0, 0, 6] + ascii("/a\0\0,\0\0\0"), .bundleElementSizeInvalid(offset: 16, size: 6),
            "bundle element at byte 16 claims 6 bytes; a size is a positive multiple of 4")
        expect(
            bundleStart + [0, 0, 0, 0], .bundleElementSizeInvalid(offset: 16, size: 0),
            "bundle element at byte 16 claims 0 bytes; a size is a positive multiple of 4")
        expect(
            bundleStart + [0xFF, 0xFF, 0xFF, 0xFC], .bundleElementSizeInvalid(offset: 16, size: -4),
            "bundle element at byte 16 claims -4 bytes; a size is a positive multiple of 4")
        expect(
            bundleStart + [0, 0, 0, 4] + ascii("xyz\0"), .unknownPacketStart(byte: 0x78, offset: 20),
            "data at byte 20 starts with 'x', not '/' (a message) or '#bundle'")
        // A nested bundle whose element size leaves no room for its time tag.
        expect(
            bundleStart + [0, 0, 0, 8] + ascii("#bundle\0"),
            .truncated(item: "bundle time tag", offset: 28, needed: 8, remaining: 0),
            "bundle time tag at byte 28 needs 8 bytes but 0 remain")
        // A string inside an element may not run on into the next element.
        expect(
            bundleStart + [0, 0, 0, 4] + ascii("/abc") + [0, 0, 0, 4] + ascii("d\0\0\0"),
            .stringNotTerminated(offset: 20), "string at byte 20 is not terminated")
    }

    @Test("Bundles nest 8 deep, not 9")
    func depthLimit() throws {
        #expect(OSCPacket.maximumBundleDepth == 8)
        let eight = try nested(depth: 8).encoded()
        #expect(try OSCPacket(decoding: eight) == nested(depth: 8))
        // Wrap the 8 by hand in a ninth bundle: its innermost bundle starts 20 bytes further in.
        let nine = bundleStart + [0, 0, 0, UInt8(eight.count)] + eight
        expect(nine, .bundleTooDeep(offset: 160, limit: 8), "bundle at byte 160 is nested deeper than 8 bundles")
    }

    @Test("A message with no type tag string at all has no arguments (robust to OSC 1.0's oldest senders)")
    func missingTypeTagString() throws {
        #expect(try OSCPacket(decoding: ascii("/metronome/play\0")) == .message(OSCMessage("/metronome/play")))
    }
}
