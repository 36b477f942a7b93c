import ArgumentParser
import MetronomeKit

/// `metronome sounds`: the built-in click styles.
struct Sounds: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the built-in click sounds (use one with --sound NAME).")

    func run() {
        let width = ClickStyle.allCases.map(\.rawValue.count).max() ?? 0
        for style in ClickStyle.allCases {
            let padding = String(repeating: " ", count: width - style.rawValue.count + 2)
            print("\(style.rawValue)\(padding)\(style.summary)")
        }
    }
}
