import MetronomeModel
import MetronomePatterns

/// The click's settings made into a plan, with the command line's wording of what went wrong.
extension SettingForm {
    /// Checks the click's and the output's settings (`clickRequest`) and makes the plan of `source`.
    /// - Parameter source: what plays: the click, a pattern, a MIDI file.
    /// - Returns: the plan, and the file the settings name (nil to play live).
    /// - Throws: `CommandLineError`: a bad value or settings that exclude each other 64; a file that cannot be read
    ///   or used as `CommandLineError(_:tempo:)` words it, naming the tempo option given.
    public func clickPlan(_ source: ClickFormSource) throws(CommandLineError) -> (plan: ClickPlan, output: OutputPlan?)
    {
        let checked: CheckedClick
        do { checked = try clickRequest(source) } catch { throw CommandLineError(error) }
        var plan: ClickPlan
        do { plan = try ClickPlan(checked.request) } catch { throw CommandLineError(error, tempo: checked.tempo) }
        plan.title = checked.request.source.title
        plan.soundFiles = checked.request.soundFiles
        return (plan, checked.output)
    }
}

extension ClickRequest.Source {
    /// What plays, in a few words (`ClickPlan.title`): `click 120 4/4`, a pattern's name as asked for, a MIDI file's
    /// path.
    public var title: String {
        switch self {
        case .click(let section, _):
            let bpm = section.tempo.quarterNotesPerMinute
            let tempo = bpm == bpm.rounded() ? String(Int(bpm)) : String(bpm)
            return "click \(tempo) \(section.meter)"
        case .pattern(let document, _, _): return document.requestedName
        case .midi(let playback, _): return playback.path
        }
    }
}
