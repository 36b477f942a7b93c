import ArgumentParser
import Glibc
import MetronomeKit

/// `metronome patterns`: the shipped patterns with the first line of their header.
struct Patterns: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the shipped patterns; play one with 'metronome play NAME'.",
        discussion: """
            The patterns are looked up in $METRONOME_PATTERNS, else in a Patterns folder beside the executable or \
            above it (the repository's own), else in ./Patterns.
            """)

    /// The main command's options, parsed only to be refused: the list depends on none of them.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(in: "patterns", note: "it takes no options")
        guard let folder = PatternFile.shippedFolder(), let directory = opendir(folder) else {
            throw CommandLineError(
                .noInput, "cannot find the shipped patterns; set METRONOME_PATTERNS to the Patterns folder")
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".metro") { names.append(String(name.dropLast(".metro".count))) }
        }
        closedir(directory)
        let width = names.map(\.count).max() ?? 0
        for name in names.sorted() {
            let file = PatternFile(path: folder + "/" + name + ".metro")
            let summary = try file.score().summary ?? ""
            print(name + String(repeating: " ", count: width - name.count) + "  " + summary)
        }
    }
}
