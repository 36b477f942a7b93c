import MetronomeOSC
import Testing

@Suite("OSC encoding: exact bytes")
struct OSCEncodingTests {
    @Test("The OSC 1.0 specification's first example: /oscillator/4/frequency ,f 440.0")
    func specificationFrequencyExample() throws {
        let packet = OSCPacket.message(OSCMessage("/oscillator/4/frequency", [.float32(440.0)]))
        let expected = hex(
            """
            2f 6f 73 63 69 6c 6c 61 74 6f 72 2f 34 2f 66 72 65 71 75 65 6e 63 79 00
            2c 66 00 00 43 dc 00 00
            """)
        #expect(try packet.encoded() == expected)
        #expect(try OSCPacket(decoding: expected) == packet)
    }

    @Test("The specification's second example: /foo ,iisff 1000 -1 \"hello\" 1.234 5.678")
    func specificationFooExample() throws {
        let packet = OSCPacket.message(
            OSCMessage("/foo", [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)]))
        let expected = hex(
            """
            2f 66 6f 6f 00 00 00 00 2c 69 69 73 66 66 00 00 00 00 03 e8 ff ff ff ff
            68 65 6c 6c 6f 00 00 00 3f 9d f3 b6 40 b5 b2 2d
            """)
        #expect(try packet.encoded() == expected)
        #expect(try OSCPacket(decoding: expected) == packet)
    }

    @Test("Every argument type, written out by hand")
    func everyArgumentType() throws {
        let message = OSCMessage(
            "/x",
            [
                .int32(-2), .float32(-0.5), .string("abcd"), .blob([1, 2, 3, 4, 5]), .int64(0x0102_0304_0506_0708),
                .float64(1.0), .timeTag(OSCTimeTag(seconds: 0x83AA_7E80, fraction: 0x8000_0000)),
                .char(UInt8(ascii: "A")), .bool(true), .bool(false), .null, .impulse, .symbol("sym"),
            ])
        #expect(message.typeTags == ",ifsbhdtcTFNIS")
        let expected = hex(
            """
            2f 78 00 00
            2c 69 66 73 62 68 64 74 63 54 46 4e 49 53 00 00
            ff ff ff fe
            bf 00 00 00
            61 62 63 64 00 00 00 00
            00 00 00 05 01 02 03 04 05 00 00 00
            01 02 03 04 05 06 07 08
            3f f0 00 00 00 00 00 00
            83 aa 7e 80 80 00 00 00
            00 00 00 41
            73 79 6d 00
            """)
        #expect(try OSCPacket.message(message).encoded() == expected)
        #expect(try OSCPacket(decoding: expected) == .message(message))
    }

    @Test("Strings take their NUL and pad to 4: lengths 0 to 5", arguments: 0...5)
    func stringPadding(length: Int) throws {
        let text = String(repeating: "a", count: length)
        let bytes = try OSCPacket.message(OSCMessage("/s", [.string(text)])).encoded()
        let padded = (length / 4 + 1) * 4
        #expect(bytes == ascii("/s\0\0,s\0\0") + ascii(text) + [UInt8](repeating: 0, count: padded - length))
    }

    @Test("Blobs pad their data to 4 with zeros, and an empty blob is its size alone", arguments: 0...5)
    func blobPadding(length: Int) throws {
        let data = (0..<length).map { UInt8(0xA0 + $0) }
        let bytes = try OSCPacket.message(OSCMessage("/b", [.blob(data)])).encoded()
        let padding = [UInt8](repeating: 0, count: (4 - length % 4) % 4)
        #expect(bytes == ascii("/b\0\0,b\0\0") + [0, 0, 0, UInt8(length)] + data + padding)
    }

    @Test("A message with no arguments keeps its type tag string ','")
    func noArguments() throws {
        #expect(try OSCPacket.message(OSCMessage("/metronome/play")).encoded() == ascii("/metronome/play\0,\0\0\0"))
    }

    @Test("A bundle: #bundle, its time tag, then each element's size and bytes, nested bundles included")
    func bundleBytes() throws {
        let inner = OSCBundle(timeTag: .immediately, [.message(OSCMessage("/b"))])
        let bundle = OSCBundle(
            timeTag: OSCTimeTag(seconds: 0xE8FE_1C80, fraction: 1),
            [.message(OSCMessage("/a", [.int32(1)])), .bundle(inner)])
        let expected = hex(
            """
            23 62 75 6e 64 6c 65 00  e8 fe 1c 80 00 00 00 01
            00 00 00 0c  2f 61 00 00 2c 69 00 00 00 00 00 01
            00 00 00 1c  23 62 75 6e 64 6c 65 00 00 00 00 00 00 00 00 01
                         00 00 00 08  2f 62 00 00 2c 00 00 00
            """)
        #expect(try OSCPacket.bundle(bundle).encoded() == expected)
        #expect(try OSCPacket(decoding: expected) == .bundle(bundle))
    }

    @Test("An empty bundle is its header and time tag")
    func emptyBundle() throws {
        let bytes = try OSCPacket.bundle(OSCBundle(timeTag: .immediately, [])).encoded()
        #expect(bytes == ascii("#bundle\0") + [0, 0, 0, 0, 0, 0, 0, 1])
    }

    @Test("What cannot be encoded is a typed error with its sentence")
    func encodingErrors() {
        #expect(throws: OSCError.addressNotSlash("foo")) { try OSCPacket.message(OSCMessage("foo")).encoded() }
        #expect(OSCError.addressNotSlash("foo").description == "address \"foo\" does not start with '/'")
        #expect(throws: OSCError.addressNotSlash("")) { try OSCPacket.message(OSCMessage("")).encoded() }
        let nul = OSCError.stringContainsNUL("a\0b")
        #expect(throws: nul) { try OSCPacket.message(OSCMessage("/a", [.string("a\0b")])).encoded() }
        #expect(nul.description == #"string "a\0b" contains a NUL byte, which an OSC string cannot carry"#)
        #expect(throws: OSCError.stringContainsNUL("/a\0")) { try OSCPacket.message(OSCMessage("/a\0")).encoded() }
        let large = OSCError.packetTooLarge(size: 65_548, limit: 65_536)
        #expect(throws: large) {
            try OSCPacket.message(OSCMessage("/b", [.blob([UInt8](repeating: 7, count: 65_536))])).encoded()
        }
        #expect(large.description == "packet of 65548 bytes is larger than the limit of 65536 bytes")
        #expect(throws: OSCError.bundleTooDeep(offset: 160, limit: 8)) { try nested(depth: 9).encoded() }
    }

    @Test("The largest packet encodes and decodes: 65,536 bytes exactly")
    func largestPacket() throws {
        let packet = OSCPacket.message(OSCMessage("/b", [.blob([UInt8](repeating: 7, count: 65_536 - 12))]))
        let bytes = try packet.encoded()
        #expect(bytes.count == 65_536)
        #expect(try OSCPacket(decoding: bytes) == packet)
    }
}

/// Bundles inside bundles, `depth` of them, the innermost holding one message.
func nested(depth: Int) -> OSCPacket {
    var packet = OSCPacket.message(OSCMessage("/deep"))
    for _ in 0..<depth { packet = .bundle(OSCBundle(timeTag: .immediately, [packet])) }
    return packet
}
