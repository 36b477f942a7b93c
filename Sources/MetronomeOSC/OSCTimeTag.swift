/// An OSC time tag: an NTP timestamp, 64 bits of fixed point counting seconds since midnight, 1 January 1900 (UTC).
///
/// The upper 32 bits are whole seconds, the lower 32 bits a fraction of a second in units of 2⁻³² s (about 233 ps).
/// The value 1 (63 zero bits, then a one) is the special tag ``immediately``. Only NTP era 0 is represented:
/// 1900-01-01T00:00:00Z up to (not including) 2036-02-07T06:28:16Z, when the 32-bit seconds field wraps.
///
/// Conversions to and from nanoseconds live in `OSCTimeTag+Clock.swift`.
public struct OSCTimeTag: Hashable, Sendable, CustomStringConvertible {
    /// The 64-bit value as it travels, big-endian, in a packet: seconds in the upper half, fraction in the lower.
    public let rawValue: UInt64

    /// The special tag meaning "as soon as the packet arrives" (the raw value 1).
    public static let immediately = OSCTimeTag(rawValue: 1)

    /// A time tag from its 64-bit wire value.
    ///
    /// - Parameter rawValue: seconds since 1900 in the upper 32 bits, the fraction in units of 2⁻³² s in the lower.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A time tag from its two halves.
    ///
    /// - Parameters:
    ///   - seconds: whole seconds since 1900-01-01T00:00:00Z.
    ///   - fraction: the fraction of a second, in units of 2⁻³² s.
    public init(seconds: UInt32, fraction: UInt32) {
        rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// Whole seconds since 1900-01-01T00:00:00Z (the upper 32 bits).
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }

    /// The fraction of a second in units of 2⁻³² s (the lower 32 bits).
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    /// Whether this is the special tag ``immediately``. Conversions treat it as the plain instant it encodes
    /// (2⁻³² s after the NTP epoch), so a receiver checks this first.
    public var isImmediate: Bool { rawValue == 1 }

    /// `immediately`, or the two halves in hexadecimal, for instance `0xE8FE1C80.80000000`.
    public var description: String {
        if isImmediate { return "immediately" }
        return "0x" + hex(seconds) + "." + hex(fraction)
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
