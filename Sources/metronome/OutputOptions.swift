import ArgumentParser
import MetronomeFiles
import MetronomeKit

/// How the sound comes out, whatever makes it (a click, a pattern, notes): how long, how loud, at what rate and in
/// how many channels and voices, and the file it is written to. `chord` takes these and not the click's options, so
/// they are a group of their own. The options with a default are optional so that a command that takes none of them
/// can tell one was given; their help states the default as the argument parser would.
struct OutputOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Stop after this many seconds.")
    var duration: String?

    @Option(parsing: .unconditional, help: "Perceptual volume 0 to 1 (gain = volume³, like PulseAudio's slider).")
    var volume: String?

    @Option(
        name: .customLong("gain-db"), parsing: .unconditional,
        help: "Master gain in dB, -96 to 12, instead of --volume.")
    var gainDecibels: String?

    @Option(
        name: .customLong("sample-rate"), parsing: .unconditional,
        help: ArgumentHelp(
            "Output sample rate in Hz: \(SampleRate.allowed.dropLast().map(String.init).joined(separator: ", ")) or "
                + "\(SampleRate.allowed.last!). (default: 48000)"))
    var sampleRate: String?

    @Option(
        name: .shortAndLong,
        help: "Render to this file instead of playing (.wav, .flac, .ogg or .aiff), or export a MIDI file (.mid).")
    var output: String?

    @Option(help: "Sample type of the file: pcm16, pcm24 or float (default float; pcm24 for .flac).")
    var format: String?

    @Option(parsing: .unconditional, help: "Channels of the file: 1 or 2. (default: 2)")
    var channels: String?

    @Option(parsing: .unconditional, help: "Voices that may sound at once, 1 to 4096. (default: 64)")
    var voices: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// The names of the options given, in the order they are declared.
    var given: [String] {
        let named: [(String, Bool)] = [
            ("--duration", duration != nil), ("--volume", volume != nil), ("--gain-db", gainDecibels != nil),
            ("--sample-rate", sampleRate != nil), ("--output", output != nil), ("--format", format != nil),
            ("--channels", channels != nil), ("--voices", voices != nil), ("--quiet", quiet),
        ]
        return named.filter(\.1).map(\.0)
    }

    /// `--sample-rate`, checked.
    func checkedSampleRate() throws(CommandLineError) -> SampleRate {
        let text = sampleRate ?? "48000"
        do { return try SampleRate(parsing: text) } catch {
            throw .usage(option: "--sample-rate", "\(text): \(error.reason)")
        }
    }

    /// `--channels` and `--voices`, checked.
    func checkedMix() throws(CommandLineError) -> (channels: Int, voices: Int) {
        (
            try parseOption("--channels", channels ?? "2", SettingText.channels),
            try parseOption("--voices", voices ?? "64", SettingText.voices)
        )
    }

    /// `--volume` or `--gain-db` as a linear gain (1 when neither is given).
    func masterGain() throws(CommandLineError) -> Float {
        if volume != nil, gainDecibels != nil {
            throw CommandLineError(.usage, "--volume and --gain-db cannot be used together; choose one")
        }
        if let gain = try parseOption("--volume", volume, SettingText.volumeGain) { return gain }
        return try parseOption("--gain-db", gainDecibels, SettingText.decibelGain) ?? 1
    }

    /// The file to render to, with its container and sample type, or nil to play live.
    func outputPlan() throws(CommandLineError) -> OutputPlan? {
        guard let output else {
            if let format {
                throw .usage(option: "--format", "\(format): --format applies only with --output FILE")
            }
            return nil
        }
        if MIDIPlayback.namesMIDIFile(output) {
            try refuseAudioOptions(midiPath: output)
            return OutputPlan(path: output, audio: nil)
        }
        guard !output.isEmpty, let container = AudioContainer(path: output) else {
            throw .usage(
                option: "--output",
                "\(output): unknown file type; the name must end in .wav, .flac, .ogg, .aiff or .mid")
        }
        let type = try parseOption("--format", format) { text throws(InvalidValue) in
            do throws(InvalidValue) {
                return try SettingText.sampleType(text, for: container)
            } catch {
                // The only thing to do about an Ogg file's type is to give none.
                guard container == .ogg else { throw error }
                throw InvalidValue(value: text, reason: error.reason + "; leave --format out")
            }
        }
        return OutputPlan(
            path: output, audio: .init(container: container, sampleType: type ?? container.defaultSampleType))
    }

    /// A MIDI file holds notes, not sound: the options that shape the audio (its sample type, rate, channels,
    /// voices and level) would change nothing in it, so they are refused rather than ignored.
    private func refuseAudioOptions(midiPath: String) throws(CommandLineError) {
        let audioOptions: [(String, String?)] = [
            ("--format", format), ("--sample-rate", sampleRate), ("--channels", channels), ("--voices", voices),
            ("--volume", volume), ("--gain-db", gainDecibels),
        ]
        if let (name, value) = audioOptions.first(where: { $0.1 != nil }) {
            throw .usage(option: name, "\(value!): \(midiPath) is a MIDI file, which holds no audio; leave \(name) out")
        }
    }
}
