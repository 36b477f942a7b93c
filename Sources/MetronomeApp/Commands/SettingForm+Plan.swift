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
        do { return (try ClickPlan(checked.request), checked.output) } catch {
            throw CommandLineError(error, tempo: checked.tempo)
        }
    }
}
