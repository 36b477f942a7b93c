import MetronomeModel

/// A setlist as written: the set's title and its songs in order, each with its source, its settings and how the set
/// moves on after it. The file format is documented in docs/setlists.md.
///
/// One statement per line, `#` starts a comment (at the start of a line or after a space, outside quotes):
///
/// ```
/// setlist "Friday at the Blue Note"
/// switch now
/// song "Opener" pattern basic bpm 128 count-in 1
/// song "Ballad" file ballad.metro tempo-scale 0.9 sound wood
/// song "Straight" click 96 3/4 bars 32 count-in 2 then after 4s
/// ```
///
/// Parsing checks the structure (keywords, titles, sources, `then` and `switch`) and the limits; a setting's value
/// is kept as written and checked by the application layer with the command line's own rules, so that a bad value
/// reads as the option's error does (`MetronomeApp.SetlistDocument`).
///
/// Invariant: `songs` holds 1 to `maximumSongs` songs; every title is 1 to `maximumTitleLength` characters.
///
/// Threads: an immutable value; any thread.
public struct Setlist: Sendable, Hashable {
    /// The set's title (`setlist "…"`), if the file gives one.
    public var title: String?
    /// The songs, in the order they play.
    public var songs: [SetlistSong]

    /// The largest setlist read: 256 KiB of text (a set of `maximumSongs` songs with long paths fits in a tenth).
    public static let maximumBytes = 256 * 1024
    /// The most songs a set holds.
    public static let maximumSongs = 500
    /// The longest title, of the set or of a song, in characters.
    public static let maximumTitleLength = 100
    /// The longest gap `then after` may give, in seconds (ten minutes).
    public static let maximumGap: Seconds = 600

    /// A set from its parts.
    /// - Parameters:
    ///   - title: the set's title.
    ///   - songs: the songs, in order.
    public init(title: String?, songs: [SetlistSong]) {
        self.title = title
        self.songs = songs
    }

    /// Whether a path names a setlist: it ends in `.setlist`.
    /// - Parameter path: a file's path or a name.
    public static func isSetlist(path: String) -> Bool { path.hasSuffix(".setlist") }

    /// Parses a setlist file's text.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in error messages.
    /// - Returns: the set as written.
    /// - Throws: `PatternError` (`FILE:LINE:COLUMN: error: …`, the line and a caret) at the first malformed
    ///   statement, when the text is larger than `maximumBytes`, or when there is no song.
    /// - Complexity: O(n) in the text's length.
    public static func parse(_ text: String, file: String) throws(PatternError) -> Setlist {
        var parser = SetlistParser(file: file)
        return try parser.parse(text)
    }
}
