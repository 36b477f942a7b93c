/// Which settings a command takes, where it takes fewer than the main command: the rules the command line checks
/// before it plays or prints anything.
extension SettingForm {
    /// The settings `check` takes: those that change the timeline, as `play` takes them.
    public static let timelineSettings: Set<String> = [
        "--bpm", "--count-in", "--subdivide", "--tempo-scale", "--start-at",
    ]

    /// Refuses what `check` does not take: the first setting given, for a setlist (each song's settings are in the
    /// file); else the first that does not change the timeline (`timelineSettings`).
    /// - Parameter setlist: whether the file checked is a setlist.
    public func refuseInCheck(setlist: Bool) throws(SettingError) {
        if setlist, let name = given.first {
            throw SettingError(name, "does not apply to 'check' of a setlist: each song's settings are in the file")
        }
        if let name = given.first(where: { !Self.timelineSettings.contains($0) }) {
            throw SettingError(
                name,
                "does not apply to 'check'; it takes --bpm, --tempo-scale, --start-at, --count-in and --subdivide, as "
                    + "play does")
        }
    }

    /// Refuses what a setlist played live does not take: the first setting given but `--quiet`, `--sample-rate`
    /// (the run's) and `--soundfont` (its MIDI files'); every other is a song's, in the file, or a render's.
    /// - Parameter defaults: settings a front end always gives (the note options' defaults): one given at its
    ///   default was not given.
    public func refuseForSetlist(defaults: SettingForm) throws(SettingError) {
        let taken = ["--quiet", "--sample-rate", "--soundfont"]
        guard let name = given.first(where: { !taken.contains($0) && self[$0] != defaults[$0] }) else { return }
        let reason =
            name == "--output"
            ? "a setlist plays live; render its songs one by one with play" : "each song's settings are in the file"
        throw SettingError(name, "does not apply to a setlist: \(reason)")
    }
}
