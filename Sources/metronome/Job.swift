import MetronomeFiles
import MetronomeKit

/// Where a render goes: an audio file, or a Standard MIDI File (`.mid`, `.midi`, `.smf`, `.kar`).
struct OutputPlan {
    /// The container and sample type of an audio file.
    struct Audio {
        var container: AudioContainer
        var sampleType: AudioSampleType
    }

    var path: String
    /// The audio format, or nil for a MIDI file.
    var audio: Audio?
}

/// What a command runs: the library's plan, where it goes (a file, or live when nil), and whether to print.
struct Job {
    var plan: ClickPlan
    var output: OutputPlan?
    var quiet: Bool
}

/// A pattern file named on the command line, with `play`'s tempo options as given (checked by `tempoOverride`).
struct PatternRequest {
    var document: PatternDocument
    var startAt: String?
    var tempoScale: String?

    /// A file or shipped pattern named on the command line.
    init(named name: String, startAt: String? = nil, tempoScale: String? = nil) {
        document = PatternLibrary().document(named: name)
        self.startAt = startAt
        self.tempoScale = tempoScale
    }

    /// The tempo override from `--bpm` (already checked) or `--tempo-scale`.
    func tempoOverride(bpm: BPM?) throws(CommandLineError) -> TempoOverride {
        if bpm != nil, tempoScale != nil {
            throw CommandLineError(.usage, "--bpm and --tempo-scale cannot be used together; choose one")
        }
        if let bpm { return .bpm(bpm) }
        return try parseOption("--tempo-scale", tempoScale, SettingText.tempoScale).map { .scale($0) } ?? .none
    }
}

/// The mixer settings a plan asks for: out of range is exit 64.
func mixerConfiguration(_ plan: ClickPlan) throws(CommandLineError) -> MixerConfiguration {
    do { return try plan.mixerConfiguration() } catch { throw CommandLineError(.usage, error.description) }
}

/// The plan's session (`ClickPlan.session`): a map or player the mixer refuses is exit 64.
func session(_ plan: ClickPlan, configuration: MixerConfiguration, lookahead: SampleTime?) throws(CommandLineError)
    -> Session
{
    do {
        return try plan.session(configuration: configuration, lookahead: lookahead)
    } catch {
        throw CommandLineError(error)
    }
}
