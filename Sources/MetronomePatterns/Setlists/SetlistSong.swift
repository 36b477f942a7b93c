import MetronomeModel

/// One song of a setlist as written: its title, what plays, the settings the click options name, how the set moves
/// on after it and how a switch away from it lands, and where it was written (for messages).
///
/// Threads: an immutable value; any thread.
public struct SetlistSong: Sendable, Hashable {
    /// What a song plays.
    public enum Source: Sendable, Hashable {
        /// `pattern NAME`: a shipped pattern (or one in the library's folders), found by name as `play NAME` finds
        /// it.
        case pattern(name: String)
        /// `file PATH`: a `.metro` pattern, a klick tempo map or a Standard MIDI File, as `play PATH` tells them
        /// apart; a relative path is relative to the setlist's folder.
        case file(path: String)
        /// `click TEMPO METER`: the click at a tempo and meter, as the command line's `--bpm` and `--meter` take
        /// them (the texts as written, checked by the application layer).
        case click(tempo: String, meter: String)
    }

    /// A setting of the song: the command-line option it stands for, its value as written, and the value's column.
    public struct Setting: Sendable, Hashable {
        /// The option's name (`--bpm`).
        public var option: String
        /// The value as written.
        public var text: String
        /// The 1-based column of the value on the song's line.
        public var column: Int

        /// A setting.
        /// - Parameters:
        ///   - option: the option's name (`--bpm`).
        ///   - text: the value as written.
        ///   - column: the value's 1-based column.
        public init(option: String, text: String, column: Int) {
            self.option = option
            self.text = text
            self.column = column
        }
    }

    /// What the set does when the song has played to its end.
    public enum Advance: Sendable, Hashable, CustomStringConvertible {
        /// `then wait` (the default): the set waits for "next".
        case wait
        /// `then after Ns`: the next song starts this many seconds after the end (0 to `Setlist.maximumGap`).
        case after(Seconds)

        /// As the file writes it after `then`: `wait`, `after 4s`, `after 2.5s`.
        public var description: String {
            switch self {
            case .wait: return "wait"
            case .after(let seconds):
                let whole = Int(exactly: seconds).map(String.init) ?? String(seconds)
                return "after \(whole)s"
            }
        }
    }

    /// How a switch to another song lands while this one plays.
    public enum Landing: String, Sendable, Hashable, CaseIterable {
        /// `switch next-bar` (the default): the new song starts (with its count-in) on this song's next bar line.
        case nextBar = "next-bar"
        /// `switch now`: the new song starts at once, with its count-in.
        case now
    }

    /// The song's title.
    public var title: String
    /// What plays.
    public var source: Source
    /// The settings, in the order written; at most one per option.
    public var settings: [Setting]
    /// What the set does after the song.
    public var advance: Advance
    /// How a switch away from the song lands.
    public var landing: Landing
    /// The 1-based line of the song's `song` statement.
    public var line: Int
    /// The song's line as written.
    public var sourceLine: String
    /// The 1-based columns of the source's values: the name or the path; the click's tempo and meter.
    public var sourceColumns: [Int]
    /// The line that gave `advance`: the song's own, an earlier `then` line, or 0 for the default.
    public var advanceLine: Int

    /// A song.
    /// - Parameters:
    ///   - title: the song's title.
    ///   - source: what plays.
    ///   - settings: the settings, at most one per option.
    ///   - advance: what the set does after the song.
    ///   - landing: how a switch away from it lands.
    ///   - line: its line in the file.
    ///   - sourceLine: that line as written.
    ///   - sourceColumns: the columns of the source's values.
    ///   - advanceLine: the line that gave `advance` (0: the default).
    public init(
        title: String, source: Source, settings: [Setting] = [], advance: Advance = .wait, landing: Landing = .nextBar,
        line: Int = 1, sourceLine: String = "", sourceColumns: [Int] = [1], advanceLine: Int = 0
    ) {
        self.title = title
        self.source = source
        self.settings = settings
        self.advance = advance
        self.landing = landing
        self.line = line
        self.sourceLine = sourceLine
        self.sourceColumns = sourceColumns
        self.advanceLine = advanceLine
    }

    /// The column of the source's first value (the name, the path, the click's tempo).
    public var sourceColumn: Int { sourceColumns.first ?? 1 }

    /// The setting given for `option`, if any.
    public subscript(option: String) -> Setting? { settings.first { $0.option == option } }

    /// The source as written in the file: `pattern NAME`, `file PATH`, `click TEMPO METER`.
    public var sourceText: String {
        switch source {
        case .pattern(let name): "pattern \(name)"
        case .file(let path): "file \(path)"
        case .click(let tempo, let meter): "click \(tempo) \(meter)"
        }
    }
}
