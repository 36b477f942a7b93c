/// One argument of an OSC message, with the type tag it travels under.
///
/// The four OSC 1.0 types (`i f s b`) and the common extras that liblo, python-osc and klick send. Arrays (`[` `]`),
/// RGBA colours (`r`) and MIDI messages (`m`) are not supported: decoding them is an ``OSCError/unknownTypeTag(_:offset:)``.
///
/// Two arguments are equal when they would encode to the same bytes: floats compare by bit pattern, so a NaN equals
/// itself and `0.0` differs from `-0.0`.
public enum OSCArgument: Sendable, Equatable, CustomStringConvertible {
    /// `i`: a 32-bit two's complement integer.
    case int32(Int32)
    /// `f`: a 32-bit IEEE 754 float.
    case float32(Float)
    /// `s`: a string. It travels NUL-terminated, so it cannot contain NUL; OSC 1.0 says ASCII, UTF-8 is accepted.
    case string(String)
    /// `b`: a blob of arbitrary bytes.
    case blob([UInt8])
    /// `h`: a 64-bit two's complement integer.
    case int64(Int64)
    /// `d`: a 64-bit IEEE 754 float.
    case float64(Double)
    /// `t`: a time tag.
    case timeTag(OSCTimeTag)
    /// `c`: a character, sent as 32 bits with the character code in the lowest byte (OSC says ASCII; any byte value
    /// is carried).
    case char(UInt8)
    /// `T` or `F`: a boolean carried by the type tag alone, with no data bytes.
    case bool(Bool)
    /// `N`: OSC's Nil, no data bytes.
    case null
    /// `I`: OSC's Impulse ("bang", also called Infinitum), no data bytes.
    case impulse
    /// `S`: a symbol, encoded exactly like a string.
    case symbol(String)

    /// The type tag character this argument travels under, as its ASCII byte.
    public var typeTag: UInt8 {
        switch self {
        case .int32: UInt8(ascii: "i")
        case .float32: UInt8(ascii: "f")
        case .string: UInt8(ascii: "s")
        case .blob: UInt8(ascii: "b")
        case .int64: UInt8(ascii: "h")
        case .float64: UInt8(ascii: "d")
        case .timeTag: UInt8(ascii: "t")
        case .char: UInt8(ascii: "c")
        case .bool(let value): value ? UInt8(ascii: "T") : UInt8(ascii: "F")
        case .null: UInt8(ascii: "N")
        case .impulse: UInt8(ascii: "I")
        case .symbol: UInt8(ascii: "S")
        }
    }

    /// The type tag and the value, for instance `f 440.0` or `b 3 bytes`.
    public var description: String {
        let tag = String(UnicodeScalar(typeTag))
        switch self {
        case .int32(let value): return "\(tag) \(value)"
        case .float32(let value): return "\(tag) \(value)"
        case .string(let value), .symbol(let value): return "\(tag) \"\(value)\""
        case .blob(let value): return "\(tag) \(value.count) bytes"
        case .int64(let value): return "\(tag) \(value)"
        case .float64(let value): return "\(tag) \(value)"
        case .timeTag(let value): return "\(tag) \(value)"
        case .char(let value): return "\(tag) \(value)"
        case .bool, .null, .impulse: return tag
        }
    }

    /// Whether two arguments would encode to the same bytes (floats by bit pattern).
    ///
    /// - Parameters:
    ///   - lhs: an argument.
    ///   - rhs: another argument.
    /// - Returns: `true` when both have the same type tag and the same value bits.
    public static func == (lhs: OSCArgument, rhs: OSCArgument) -> Bool {
        switch (lhs, rhs) {
        case (.int32(let a), .int32(let b)): a == b
        case (.float32(let a), .float32(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.blob(let a), .blob(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.float64(let a), .float64(let b)): a.bitPattern == b.bitPattern
        case (.timeTag(let a), .timeTag(let b)): a == b
        case (.char(let a), .char(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null), (.impulse, .impulse): true
        case (.symbol(let a), .symbol(let b)): a == b
        default: false
        }
    }
}
