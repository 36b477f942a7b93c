import MetronomeOSC
import Testing

@Suite("OSC round trips: every argument type, bundles inside bundles")
struct OSCRoundTripTests {
    static let arguments: [OSCArgument] = [
        .int32(0), .int32(.min), .int32(.max),
        .float32(0), .float32(-0.0), .float32(.infinity), .float32(-.infinity), .float32(.leastNonzeroMagnitude),
        .float32(Float(bitPattern: 0x7FC0_1234)),  // a NaN with a payload
        .string(""), .string("a"), .string("abc"), .string("abcd"), .string("tempo é 𝄞"),
        .blob([]), .blob([0]), .blob([1, 2, 3, 4]), .blob([UInt8](0...255)),
        .int64(.min), .int64(.max), .int64(-1),
        .float64(-0.0), .float64(.pi), .float64(.greatestFiniteMagnitude),
        .float64(Double(bitPattern: 0x7FF8_0000_0000_0BAD)),
        .timeTag(.immediately), .timeTag(OSCTimeTag(rawValue: 0)), .timeTag(OSCTimeTag(rawValue: .max)),
        .char(0), .char(UInt8(ascii: "z")), .char(255),
        .bool(true), .bool(false), .null, .impulse,
        .symbol(""), .symbol("bang"),
    ]

    @Test("Each argument alone survives encode → decode and keeps its type tag", arguments: arguments)
    func single(argument: OSCArgument) throws {
        let packet = OSCPacket.message(OSCMessage("/metronome/x", [argument]))
        let bytes = try packet.encoded()
        #expect(bytes.count % 4 == 0)
        #expect(try OSCPacket(decoding: bytes) == packet)
    }

    @Test("All of them in one message")
    func all() throws {
        let packet = OSCPacket.message(OSCMessage("/all", Self.arguments))
        #expect(try OSCPacket(decoding: packet.encoded()) == packet)
    }

    @Test("Bundles in bundles, 8 deep, with messages at every level and empty bundles")
    func nestedBundles() throws {
        var packet = OSCPacket.bundle(OSCBundle(timeTag: OSCTimeTag(rawValue: 99), []))
        for level in 1..<8 {
            packet = .bundle(
                OSCBundle(
                    timeTag: OSCTimeTag(seconds: UInt32(level), fraction: 0),
                    [.message(OSCMessage("/level", [.int32(Int32(level))])), packet, .message(OSCMessage("/after"))]))
        }
        #expect(try OSCPacket(decoding: packet.encoded()) == packet)
    }

    @Test("Equality is by encoded bits: NaN equals itself, 0.0 differs from -0.0")
    func bitEquality() {
        #expect(OSCArgument.float32(.nan) == .float32(.nan))
        #expect(OSCArgument.float32(0.0) != .float32(-0.0))
        #expect(OSCArgument.float64(0.0) != .float64(-0.0))
        #expect(OSCArgument.string("a") != .symbol("a"))
        #expect(OSCArgument.int32(1) != .int64(1))
    }

    @Test("Descriptions show the type tag and the value")
    func descriptions() {
        #expect(OSCArgument.float32(440).description == "f 440.0")
        #expect(OSCArgument.string("C").description == "s \"C\"")
        #expect(OSCArgument.blob([1, 2, 3]).description == "b 3 bytes")
        #expect(OSCArgument.bool(true).description == "T")
        #expect(OSCArgument.timeTag(.immediately).description == "t immediately")
    }
}
