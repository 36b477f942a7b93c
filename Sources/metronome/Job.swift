import MetronomeKit

/// What a command runs: the library's plan, where it goes (a file, or live when nil), and whether to print.
struct Job {
    var plan: ClickPlan
    var output: OutputPlan?
    var quiet: Bool
    /// `--force`: render even when the file may not fit the free space.
    var force = false
}

extension Job {
    /// Checks the options in `form` (`SettingForm.clickPlan`) and makes the plan of `source`: a bad value or
    /// options that exclude each other are exit 64, a file that cannot be read or used as in `CommandLineError(_:)`.
    init(_ form: SettingForm, _ source: ClickFormSource) throws(CommandLineError) {
        (plan, output) = try form.clickPlan(source)
        quiet = form.has("--quiet")
        force = form.has("--force")
    }
}

/// A pattern file or shipped pattern named on the command line, as the library's source.
func patternSource(named name: String, startAt: String? = nil) -> ClickFormSource {
    .pattern(PatternLibrary().document(named: name), startAt: startAt)
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
        return try plan.session(configuration: configuration, lookahead: lookahead, live: true)
    } catch {
        throw CommandLineError(error)
    }
}
