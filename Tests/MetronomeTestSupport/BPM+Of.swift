import MetronomeModel

extension BPM {
    /// A tempo known to be valid (a test literal); traps on an invalid one.
    public static func of(_ value: Double) -> BPM { try! BPM(value) }
}
