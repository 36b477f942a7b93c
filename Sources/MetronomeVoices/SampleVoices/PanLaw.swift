import RealModule

/// Equal-power panning normalised to unity at the centre.
///
/// For pan p in −1…1 the angle is θ = (p + 1)·π/4 and the channel gains are √2·cos θ and √2·sin θ: a centred voice
/// plays at exactly its gain on both channels (so mono output and centred clicks are not 3 dB quieter), the summed
/// power is the same at every position, and a voice panned hard to one side is 3 dB louder on that side. Stereo
/// samples are balanced with the same gains, each capped at 1.
public enum PanLaw {
    /// Left and right gains for a pan position (clamped to −1…1).
    /// - Parameters:
    ///   - pan: −1 hard left, 0 centre, +1 hard right.
    ///   - stereoSource: whether the source has two channels (then each gain is capped at 1).
    public static func gains(pan: Float, stereoSource: Bool) -> (left: Float, right: Float) {
        let clamped = min(1, max(-1, pan))
        if clamped == 0 { return (1, 1) }
        let angle = (clamped + 1) * Float.pi / 4
        var left = Float.sqrt(2) * Float.cos(angle)
        var right = Float.sqrt(2) * Float.sin(angle)
        if stereoSource {
            left = min(left, 1)
            right = min(right, 1)
        }
        return (max(0, left), max(0, right))
    }
}
