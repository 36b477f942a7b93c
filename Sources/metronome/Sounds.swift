import ArgumentParser
import MetronomeKit

/// `metronome sounds`: the built-in click styles.
struct Sounds: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the built-in click sounds (--sound NAME) and instruments (--instrument NAME for arp and chord).")

    /// The main command's options, parsed only to be refused: the list depends on none of them.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(in: "sounds", note: "it takes no options")
        let rows =
            ClickStyle.allCases.map { ($0.rawValue, $0.summary) }
            + [("", "")]
            + InstrumentSynthesizer.Instrument.allCases.map { ($0.rawValue, "instrument: " + $0.summary) }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, summary) in rows {
            guard !name.isEmpty else {
                print("")
                continue
            }
            print(name + String(repeating: " ", count: width - name.count + 2) + summary)
        }
    }
}
