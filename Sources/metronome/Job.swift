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
        if !quiet, let mute = plan.randomMute { FileOutput.standardError.write(SettingForm.randomMuteLine(mute)) }
    }
}

/// A pattern file or shipped pattern named on the command line, as the library's source.
func patternSource(named name: String, startAt: String? = nil) -> ClickFormSource {
    .pattern(PatternLibrary().document(named: name), startAt: startAt)
}
