import RealModule

/// Maps the perceptual `--volume` control (0…1) to a linear gain, and decibels to gain.
///
/// The curve is PulseAudio's cubic mapping, gain = v³: it is what a listener's desktop volume slider already does
/// (pavucontrol, `pactl set-sink-volume`), so 0.5 here sounds like 50 % there (−18 dB); it reaches silence at 0
/// exactly and spans about 60 dB over the top 90 % of its travel, close to the dynamic range the ear uses for level
/// controls. `--gain-db` sets the same gain in decibels for people who think in dB.
public enum VolumeCurve {
    /// Gain for a volume position.
    /// - Parameter volume: 0…1 (clamped).
    /// - Returns: linear gain 0…1.
    public static func gain(volume: Double) -> Float {
        let clamped = min(1, max(0, volume))
        return Float(clamped * clamped * clamped)
    }

    /// Linear gain for a level in decibels.
    public static func gain(decibels: Double) -> Float {
        Float(Double.pow(10, decibels / 20))
    }

    /// Accepted range of `--gain-db`.
    public static let decibelRange: ClosedRange<Double> = -96...12
}
