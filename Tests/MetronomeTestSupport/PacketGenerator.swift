import MetronomeOSC

/// Random packets and hostile bytes for the sweeps.
public enum PacketGenerator {
    /// A random valid packet: a message, or (below the depth limit) a bundle of up to 3 such packets.
    public static func packet(depth: Int, using random: inout SplitMix) -> OSCPacket {
        if depth < OSCPacket.maximumBundleDepth && Int.random(in: 0..<(depth == 0 ? 3 : 4), using: &random) == 0 {
            let count = Int.random(in: 0...3, using: &random)
            let elements = (0..<count).map { _ in packet(depth: depth + 1, using: &random) }
            return .bundle(OSCBundle(timeTag: OSCTimeTag(rawValue: random.next()), elements))
        }
        let parts = (0..<Int.random(in: 0...3, using: &random)).map { _ in text(using: &random, slash: false) }
        let arguments = (0..<Int.random(in: 0...8, using: &random)).map { _ in argument(using: &random) }
        return .message(OSCMessage("/" + parts.joined(separator: "/"), arguments))
    }

    /// A random argument of any of the 12 types.
    public static func argument(using random: inout SplitMix) -> OSCArgument {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: .int32(Int32(truncatingIfNeeded: random.next()))
        case 1: .float32(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
        case 2: .string(text(using: &random, slash: true))
        case 3:
            .blob((0..<Int.random(in: 0...13, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 4: .int64(Int64(bitPattern: random.next()))
        case 5: .float64(Double(bitPattern: random.next()))
        case 6: .timeTag(OSCTimeTag(rawValue: random.next()))
        case 7: .char(UInt8.random(in: 0...255, using: &random))
        case 8: .bool(Bool.random(using: &random))
        case 9: .null
        case 10: .impulse
        default: .symbol(text(using: &random, slash: true))
        }
    }

    /// 0 to 9 characters: mostly ASCII letters, some pattern characters, some beyond ASCII, never NUL.
    public static func text(using random: inout SplitMix, slash: Bool) -> String {
        let alphabet: [Unicode.Scalar] = [
            "a", "b", "z", "0", "_", "-", "*", "?", "[", "]", "{", "}", ",", " ", "é", "𝄞",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...9, using: &random) {
            scalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
        }
        if slash && Bool.random(using: &random) { scalars.append("/") }
        return String(scalars)
    }

    /// Random bytes, usually a multiple of 4 long, sometimes starting like a message or a bundle.
    public static func noise(using random: inout SplitMix) -> [UInt8] {
        let length = Int.random(in: 0...16, using: &random) * 4 + (Int.random(in: 0..<8, using: &random) == 0 ? 1 : 0)
        var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        let start = Int.random(in: 0..<3, using: &random)
        if start == 0 && !bytes.isEmpty { bytes[0] = UInt8(ascii: "/") }
        if start == 1 && bytes.count >= 8 { bytes.replaceSubrange(0..<8, with: Array("#bundle\0".utf8)) }
        return bytes
    }

    /// A valid packet with one to four bytes replaced, some by values that make plausible sizes.
    public static func mutated(using random: inout SplitMix) throws -> [UInt8] {
        var bytes = try packet(depth: 0, using: &random).encoded()
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            let values: [UInt8] = [0, 1, 4, 0x7F, 0x80, 0xFF, UInt8(ascii: ","), UInt8(ascii: "/")]
            bytes[index] =
                Bool.random(using: &random)
                ? values[Int.random(in: 0..<values.count, using: &random)] : UInt8.random(in: 0...255, using: &random)
        }
        return bytes
    }

    /// A valid packet cut short, usually at a multiple of 4.
    public static func truncated(using random: inout SplitMix) throws -> [UInt8] {
        let bytes = try packet(depth: 0, using: &random).encoded()
        var length = Int.random(in: 0..<bytes.count, using: &random)
        if Int.random(in: 0..<4, using: &random) != 0 { length -= length % 4 }
        return Array(bytes.prefix(length))
    }
}
