/// Lenient numeric readers: every address of `metronome serve` accepts the integer form of a float argument and the
/// float form of an integer one, so `/metronome/tempo ,i 120` works like `,f 120.0`.
extension OSCArgument {
    /// The argument as a 32-bit float, if it is a number.
    ///
    /// `f` is returned as is; `d` is rounded to the nearest `Float` (values beyond its range become infinite); `i`
    /// and `h` become the nearest `Float` (exact up to 2²⁴ in magnitude). Anything else is `nil`.
    public var asFloat: Float? {
        switch self {
        case .float32(let value): value
        case .float64(let value): Float(value)
        case .int32(let value): Float(value)
        case .int64(let value): Float(value)
        default: nil
        }
    }

    /// The argument as a 32-bit integer, if it is one or is a float holding one exactly.
    ///
    /// `i` is returned as is; `h` only when it fits in `Int32`; `f` and `d` only when integral and within `Int32`
    /// (`3.0` → 3; `3.5`, NaN, infinities and `3e10` → `nil`; `-0.0` → 0). Anything else is `nil`.
    public var asInt: Int32? {
        switch self {
        case .int32(let value): value
        case .int64(let value): Int32(exactly: value)
        case .float32(let value): Int32(exactly: value)
        case .float64(let value): Int32(exactly: value)
        default: nil
        }
    }
}
