import ArgumentParser
import Glibc
import MetronomeKit

/// `metronome patterns`: the shipped patterns with the first line of their header.
struct Patterns: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the shipped patterns; play one with 'metronome play NAME'.",
        discussion: """
            The patterns are looked up in $METRONOME_PATTERNS, else in a Patterns folder (or share/metronome/patterns: \
            an install, /usr/share/metronome/patterns for the Debian package) beside the executable or above it, \
            else in ./Patterns.
            """)

    /// The main command's options, parsed only to be refused: the list depends on none of them.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(in: "patterns", note: "it takes no options")
        guard let patterns = PatternLibrary().shippedPatterns() else {
            throw CommandLineError(
                .noInput, "cannot find the shipped patterns; set METRONOME_PATTERNS to the Patterns folder")
        }
        let width = patterns.map(\.name.count).max() ?? 0
        for (name, document) in patterns {
            let summary: String
            do { summary = try document.score().summary ?? "" } catch { throw CommandLineError(error) }
            print(name + String(repeating: " ", count: width - name.count) + "  " + summary)
        }
    }
}
