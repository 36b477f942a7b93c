import ArgumentParser

extension ClickOptions {
    /// The names of the options given, in the order they are declared, for commands that take some or none of them.
    var given: [String] {
        let named: [(String, Bool)] = [
            ("--bpm", bpm != nil), ("--meter", meter != nil), ("--accent", accent != nil),
            ("--subdivide", subdivide != nil), ("--count-in", countIn != nil), ("--bars", bars != nil),
            ("--sound", sound != nil), ("--sound-file", soundFile != nil),
        ]
        return named.filter(\.1).map(\.0)
    }
}
