import ArgumentParser
import MetronomeKit

/// `metronome play FILE`: plays a tempo-map file live, or renders it with `--output`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a tempo-map file (klick's format: [label:] bars [meter] tempo[-tempo2] [pattern] [volume]).",
        discussion: """
            Plays live until the map ends (or Ctrl-C), or renders the whole map with --output. --bars N stops after \
            N bars of the map, --duration after that many seconds. The file sets tempo, meter, accents and \
            subdivisions, so --bpm, --meter, --accent and --subdivide do not apply.
            """)

    @Argument(help: "The tempo-map file.")
    var file: String

    @OptionGroup var click: ClickOptions
    @OptionGroup(title: "Live playback") var live: LiveOptions

    func run() throws {
        try Metronome.perform(try click.plan(pattern: PatternFile(path: file)), live: live)
    }
}
