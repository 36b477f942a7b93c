import MetronomeModel

extension Meter {
    /// A meter known to be valid (a test literal), `beats`/`unit`; traps on an invalid one.
    public static func of(_ beats: Int, _ unit: Int) -> Meter { try! Meter(beats: beats, unit: unit) }
}
