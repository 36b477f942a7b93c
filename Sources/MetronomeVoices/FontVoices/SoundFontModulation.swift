import RealModule

/// The unit conversions and modulator source curves of SoundFont 2.04 (§8.1.3, §8.2). Pure functions, real-time
/// safe.
enum SoundFontModulation {
    /// Seconds of a time in timecents: 2^(tc/1200).
    @inline(__always)
    static func seconds(timecents: Float) -> Float { Float.exp2(timecents / 1200) }

    /// Hertz of an absolute-cents frequency: 8.176 × 2^(c/1200).
    @inline(__always)
    static func hertz(absoluteCents: Float) -> Float { 8.176 * Float.exp2(absoluteCents / 1200) }

    /// Linear gain of an attenuation in centibels: 10^(−cB/200).
    @inline(__always)
    static func gain(centibels: Float) -> Float { Float.exp10(-centibels / 200) }

    /// Centibels of attenuation of a linear gain (0 and below: 1440 cB, beyond any audible level).
    @inline(__always)
    static func centibels(gain: Float) -> Float { gain > 0 ? min(1440, -200 * Float.log10(gain)) : 1440 }

    /// The concave curve of §8.2.1 over 0...1: −(20/96)·log₁₀((1 − x)²), reaching 1 at x = 1.
    @inline(__always)
    static func concave(_ x: Float) -> Float {
        guard x < 1 else { return 1 }
        return min(1, max(0, -(40.0 / 96.0) * Float.log10(1 - x)))
    }

    /// The convex curve: the concave one mirrored.
    @inline(__always)
    static func convex(_ x: Float) -> Float { 1 - concave(1 - x) }

    /// A modulator source (§8.2.1) mapped through its direction, polarity and curve, from the source's normalised
    /// value `x` in 0...1.
    @inline(__always)
    static func map(_ x: Float, source: UInt16) -> Float {
        let direction = source & 0x0100 != 0
        let bipolar = source & 0x0200 != 0
        let type = source >> 10
        let value = direction ? 1 - x : x
        if !bipolar { return curve(value, type: type) }
        let centred = 2 * value - 1
        if type == 0 { return centred }
        return centred >= 0 ? curve(centred, type: type) : -curve(-centred, type: type)
    }

    @inline(__always)
    private static func curve(_ x: Float, type: UInt16) -> Float {
        switch type {
        case 1: return concave(x)
        case 2: return convex(x)
        case 3: return x >= 0.5 ? 1 : 0
        default: return x
        }
    }
}
