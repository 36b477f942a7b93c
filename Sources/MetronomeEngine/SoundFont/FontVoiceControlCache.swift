/// What a font voice's last control period computed from which inputs, so the next period skips the exponentials
/// and trigonometry when the inputs are unchanged — as they are for most voices most of the time (no LFO or
/// modulation envelope on that destination, no controller moving). The inputs start as NaN, which equals nothing,
/// so the first period always computes. Plain data inside `FontVoice`; render thread only.
struct FontVoiceControlCache {
    /// The pitch in cents that gave the voice's `increment`.
    var pitchCents: Float = .nan
    /// The cutoff (absolute cents) and Q (centibels) that gave the filter's coefficients.
    var cutoffCents: Float = .nan
    var filterQ: Float = .nan
    /// The attenuation (centibels) and pan (the generator's units) that gave `left` and `right`.
    var attenuation: Float = .nan
    var pan: Float = .nan
    var left: Float = 0
    var right: Float = 0
}
