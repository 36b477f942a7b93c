/// Whole bars muted at random, the inner-time drill: the beats go on, the click is silent, and the player keeps the
/// time alone until it comes back.
///
/// Whether a bar is muted is a pure function of the seed, the bar's index over the whole map and the probability (a
/// SplitMix64 hash of seed and bar compared with the probability): no generator state, so a bar is muted or not the
/// same way live and in a render, after a locate, a tempo change or a pause, and in every run with the same seed.
/// Count-in bars and the first bar of music played (`TempoMap.firstBar`, which a start label moves) are never muted:
/// the player hears where bar 1 is before the drill starts.
public struct RandomMute: Sendable, Hashable {
    /// The chance that a bar is muted, 0 < p < 1.
    public let probability: Double
    /// The seed: the same seed and probability mute the same bars.
    public let seed: UInt64

    /// A random mute.
    /// - Parameters:
    ///   - probability: the chance that a bar is muted, greater than 0 and less than 1.
    ///   - seed: any number; the same one repeats the same bars.
    /// - Precondition: 0 < `probability` < 1 (the settings check it with a message).
    public init(probability: Double, seed: UInt64) {
        precondition(probability > 0 && probability < 1, "a random mute's probability is between 0 and 1")
        self.probability = probability
        self.seed = seed
    }

    /// Whether bar `bar` is muted.
    /// - Parameters:
    ///   - bar: the bar counted over the whole map (`ClickEvent.bar`: count-in bars before `firstBar`).
    ///   - firstBar: the map's first bar of music (`TempoMap.firstBar`); it and every bar before it sound.
    /// - Returns: true when the bar's clicks are muted.
    /// - Complexity: O(1).
    public func mutes(bar: Int, firstBar: Int) -> Bool {
        guard bar > firstBar else { return false }
        return unitValue(bar: bar) < probability
    }

    /// The bar's hash as a number in [0, 1): 53 bits of SplitMix64's finalizer over the seed and the bar.
    func unitValue(bar: Int) -> Double {
        let mixed = RandomMute.splitMix64(seed &+ UInt64(bitPattern: Int64(bar)) &* 0x9E37_79B9_7F4A_7C15)
        return Double(mixed >> 11) * 0x1p-53
    }

    /// SplitMix64's output function (Steele, Lea and Flood 2014) on `state` advanced by one step.
    static func splitMix64(_ state: UInt64) -> UInt64 {
        var z = state &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
