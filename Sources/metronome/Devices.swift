import ArgumentParser
import MetronomeKit
import MetronomePulse

/// `metronome devices`: the PulseAudio sinks `--device` can name.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the PulseAudio sinks (use one with --device NAME).")

    /// The main command's options, parsed only to be refused: the list depends on none of them.
    @OptionGroup(visibility: .hidden) var root: RootOptions

    func run() throws {
        try root.refuse(in: "devices", note: "it takes no options")
        let sinks: [PulseSink]
        do {
            sinks = try PulseDevices.sinks()
        } catch {
            throw CommandLineError(.unavailable, error.description)
        }
        let width = sinks.map(\.name.count).max() ?? 0
        for sink in sinks {
            let padding = String(repeating: " ", count: width - sink.name.count + 2)
            print("\(sink.name)\(padding)\(sink.description)\(sink.isDefault ? " (default)" : "")")
        }
    }
}
