import MetronomeModel
import MetronomeMusic

extension SettingForm {
    /// The largest seed `randomMute()` picks when none is given: six digits are quick to type back.
    public static let largestPickedSeed: UInt64 = 999_999

    /// `--random-mute P` with `--mute-seed N` (only with it; not `--seed`, which seeds `arp`'s random styles): nil
    /// without `--random-mute`.
    /// - Parameter pickSeed: the seed when `--mute-seed` is not given (default: a random one up to
    ///   `largestPickedSeed`).
    /// - Throws: `SettingError` for a bad value, or `--mute-seed` alone.
    public func randomMute(pickSeed: () -> UInt64 = { .random(in: 0...SettingForm.largestPickedSeed) })
        throws(SettingError) -> RandomMute?
    {
        let seed = try value("--mute-seed", SettingText.seed)
        guard let probability = try value("--random-mute", SettingText.muteProbability) else {
            if let text = self["--mute-seed"] {
                throw SettingError("--mute-seed", "\(text): --mute-seed applies only with --random-mute")
            }
            return nil
        }
        return RandomMute(probability: probability, seed: seed ?? pickSeed())
    }

    /// `--practice DURATION` in seconds, nil without it; not with `--bars` or `--duration`, which end the run
    /// themselves.
    public func practiceSeconds() throws(SettingError) -> Seconds? {
        try exclusive("--bars", "--practice")
        try exclusive("--duration", "--practice")
        return try value("--practice", SettingText.practiceDuration)
    }

    /// The line a run with a random mute says first, so it can be repeated:
    /// `metronome: random mute 25%, seed 1234 (--mute-seed 1234 repeats it)`.
    public static func randomMuteLine(_ mute: RandomMute) -> String {
        let tenths = (mute.probability * 1000).rounded() / 10
        let percent = tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        return "metronome: random mute \(percent)%, seed \(mute.seed) (--mute-seed \(mute.seed) repeats it)\n"
    }
}
