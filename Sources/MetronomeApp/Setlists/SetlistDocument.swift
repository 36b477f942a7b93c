import MetronomeFiles
import MetronomeModel
import MetronomePatterns

/// A setlist file (`.setlist`), read, parsed and checked song by song into a `SetlistPlan`.
///
/// A song's `file PATH` is relative to the setlist's folder (an absolute path is used as it is); its `pattern NAME`
/// is found in the library's folders (`PatternLibrary.shipped(named:)`), never in the working folder. Every song's
/// settings go through the command line's own checks (`SettingForm.clickRequest`, `ClickPlan.init`), so a bad value
/// reads as the option's error does, at the song's line and the value's column.
///
/// Threads: an immutable value; build plans on a control thread (it reads files).
public struct SetlistDocument: Sendable {
    /// The setlist file, as named.
    public let path: String
    /// Where `pattern NAME` is looked up.
    public var library: PatternLibrary

    /// A setlist at a path.
    /// - Parameters:
    ///   - path: the file.
    ///   - library: where `pattern NAME` is found (default: the shipped patterns).
    public init(path: String, library: PatternLibrary = PatternLibrary()) {
        self.path = path
        self.library = library
    }

    /// Whether a path names a setlist: it ends in `.setlist` (`Setlist.isSetlist`).
    public static func isSetlist(path: String) -> Bool { Setlist.isSetlist(path: path) }

    /// The folder relative paths start from: the setlist's own (with its trailing `/`), or "" for the working folder.
    public var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// A song's path as the file writes it, made relative to the setlist's folder.
    /// - Parameter written: the path after `file`.
    /// - Returns: `written` when absolute, else the setlist's folder followed by it.
    public func resolve(_ written: String) -> String { written.hasPrefix("/") ? written : folder + written }

    /// The set as written.
    /// - Throws: `SetlistError.file` when the file cannot be read (missing 66), `.malformed` at the first malformed
    ///   statement (65).
    public func setlist() throws(SetlistError) -> Setlist {
        let text: String
        do { text = try TextFile.read(path: path) } catch { throw .file(error) }
        do { return try Setlist.parse(text, file: path) } catch { throw .malformed(error) }
    }

    /// The set checked: every song's source read and its plan made, as `play` would make it.
    /// - Parameter sampleRate: the rate the plans are made for.
    /// - Returns: the plan of every song, in order.
    /// - Throws: `SetlistError.file` when the setlist cannot be read; `.malformed` at the first statement or song
    ///   that cannot play (its message the command line's for the same value).
    /// - Complexity: reads every song's file once.
    public func plan(sampleRate: SampleRate = .standard) throws(SetlistError) -> SetlistPlan {
        let setlist = try setlist()
        var songs: [SetlistPlan.Song] = []
        for song in setlist.songs {
            do { songs.append(try checked(song, sampleRate: sampleRate)) } catch { throw .malformed(error) }
        }
        return SetlistPlan(path: path, title: setlist.title, songs: songs)
    }

    /// One song's plan.
    private func checked(_ song: SetlistSong, sampleRate: SampleRate) throws(PatternError) -> SetlistPlan.Song {
        var values = song.settings
        if case .click(let tempo, let meter) = song.source {
            values =
                [
                    .init(option: "--bpm", text: tempo, column: song.sourceColumn),
                    .init(option: "--meter", text: meter, column: song.sourceColumns.last ?? song.sourceColumn),
                ] + values
        }
        func failure(_ message: String) -> PatternError {
            let line = String(message.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            let named = values.first { line.hasPrefix($0.option + " ") || line.hasPrefix($0.option + ":") }
            return PatternError(
                file: path, line: song.line, column: named?.column ?? song.sourceColumn, message: line,
                sourceLine: song.sourceLine)
        }
        // The click's settings; `--start-at` is the source's (a pattern's label or bar, a MIDI file's bar).
        let form = SettingForm(values.filter { $0.option != "--start-at" }.map { ($0.option, $0.text) })
        let startAt = song["--start-at"]?.text
        let source: ClickFormSource
        var resolved: String?
        switch song.source {
        case .click: source = .click(silent: false)
        case .pattern(let name):
            guard let document = library.shipped(named: name) else {
                throw failure("\(name): no shipped pattern has this name (see 'metronome patterns')")
            }
            resolved = document.path
            source = .pattern(document, startAt: startAt)
        case .file(let written):
            let path = resolve(written)
            resolved = path
            if MIDIPlayback.isMIDI(path: path) {
                // A MIDI song plays with the click along, as `serve FILE.mid` does.
                let midiForm = SettingForm([SettingForm.flag("--click", true), ("--start-at", startAt)])
                do {
                    source = .midi(try MIDIPlayback.checked(path: path, form: midiForm, sampleRate: sampleRate))
                } catch {
                    throw failure(error.message)
                }
            } else {
                source = .pattern(PatternDocument(path: path, requestedName: written), startAt: startAt)
            }
        }
        let checked: CheckedClick
        do { checked = try form.clickRequest(source) } catch { throw failure(error.description) }
        var request = checked.request
        request.sampleRate = sampleRate
        var plan: ClickPlan
        do { plan = try ClickPlan(request) } catch {
            throw failure(CommandLineError(error, tempo: checked.tempo).message)
        }
        // What the practice log names the song's source and sound by, as for a pattern played alone.
        plan.title = request.source.title
        plan.soundFiles = request.soundFiles
        if case .after = song.advance, plan.frameCount == nil {
            let origin = song.advanceLine == song.line ? "" : " (line \(song.advanceLine))"
            throw failure(
                "the song plays without end, so 'then \(song.advance)'\(origin) never comes; give it 'bars N', or "
                    + "'then wait'")
        }
        return SetlistPlan.Song(song: song, path: resolved, request: request, plan: plan)
    }
}
