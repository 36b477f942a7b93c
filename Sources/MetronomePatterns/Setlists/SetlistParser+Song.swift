import MetronomeModel

extension SetlistParser {
    /// `song "TITLE" SOURCE [SETTINGS]`: the source right after the title, then settings in any order, each once.
    mutating func song(_ tokens: [Token]) throws(PatternError) {
        guard songs.count < Setlist.maximumSongs else {
            throw error("a setlist holds at most \(Setlist.maximumSongs) songs", at: tokens[0].column)
        }
        var index = 1
        let title = try quotedTitle(tokens, &index, of: "the song")
        let (source, sourceColumns) = try songSource(tokens, &index)
        var song = SetlistSong(
            title: title, source: source, advance: advance, landing: landing, line: line, sourceLine: self.source,
            sourceColumns: sourceColumns, advanceLine: advanceLine)
        var seen: Set<String> = []
        while index < tokens.count {
            let word = tokens[index]
            index += 1
            if word.quoted || (!["then", "switch"].contains(word.text) && Self.option(of: word.text) == nil) {
                let names = Self.settingWords.map(\.keyword).joined(separator: ", ")
                throw error(
                    "unknown setting '\(word.text)'; a song's settings are \(names), then and switch", at: word.column)
            }
            guard seen.insert(word.text).inserted else {
                throw error("'\(word.text)' is given twice on this line", at: word.column)
            }
            switch word.text {
            case "then":
                song.advance = try parseAdvance(tokens, &index)
                song.advanceLine = line
            case "switch": song.landing = try parseLanding(tokens, &index)
            default:
                if case .click = source, ["bpm", "tempo-scale", "start-at"].contains(word.text) {
                    let reason =
                        word.text == "start-at"
                        ? "a click has no sections to start at" : "a click plays the tempo written after 'click'"
                    throw error("'\(word.text)' applies to a pattern or a file; \(reason)", at: word.column)
                }
                let value = try take(tokens, &index, "a value for '\(word.text)'")
                song.settings.append(.init(option: Self.option(of: word.text)!, text: value.text, column: value.column))
            }
        }
        songs.append(song)
    }

    /// The command-line option a setting keyword stands for.
    static func option(of keyword: String) -> String? {
        settingWords.first { $0.keyword == keyword }?.option
    }

    /// `pattern NAME`, `file PATH` or `click TEMPO METER`, and the columns of its values.
    private func songSource(_ tokens: [Token], _ index: inout Int) throws(PatternError)
        -> (SetlistSong.Source, [Int])
    {
        let expected = "the song's source: 'pattern NAME', 'file PATH' or 'click TEMPO METER'"
        guard index < tokens.count else { throw error("expected \(expected)", at: endColumn) }
        let word = tokens[index]
        index += 1
        switch word.quoted ? "" : word.text {
        case "pattern":
            let name = try value(tokens, &index, "a shipped pattern's name (see 'metronome patterns')")
            guard !name.text.contains("/") else {
                throw error(
                    "a pattern is named without a folder; write a pattern file as 'file \(name.text)'",
                    at: name.column)
            }
            return (.pattern(name: name.text), [name.column])
        case "file":
            let path = try value(tokens, &index, "a file's path (.metro, a klick map or a MIDI file)")
            return (.file(path: path.text), [path.column])
        case "click":
            let tempo = try value(tokens, &index, "the click's tempo and meter (click 96 3/4)")
            let meter = try value(tokens, &index, "the click's meter after its tempo (click 96 3/4)")
            return (.click(tempo: tempo.text, meter: meter.text), [tempo.column, meter.column])
        default:
            throw error("expected \(expected), found '\(word.text)'", at: word.column)
        }
    }

    /// A value: any word, quoted or not, not empty.
    private func value(_ tokens: [Token], _ index: inout Int, _ expected: String) throws(PatternError) -> Token {
        guard index < tokens.count else { throw error("expected \(expected)", at: endColumn) }
        let token = tokens[index]
        index += 1
        guard !token.text.isEmpty else { throw error("expected \(expected), found an empty text", at: token.column) }
        return token
    }
}
