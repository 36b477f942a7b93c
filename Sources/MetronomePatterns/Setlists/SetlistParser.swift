import MetronomeModel

/// Reads a setlist's text line by line into `Setlist`, keeping the sticky `then` and `switch` defaults.
struct SetlistParser: LineParsing {
    /// A word of a line: its text (without the quotes of a quoted one), its 1-based column, whether it was quoted.
    struct Token {
        var text: String
        var column: Int
        var quoted: Bool
    }

    /// A song's settings: the keyword and the command-line option it stands for, in the order messages list them.
    static let settingWords: [(keyword: String, option: String)] = [
        ("bpm", "--bpm"), ("tempo-scale", "--tempo-scale"), ("count-in", "--count-in"), ("start-at", "--start-at"),
        ("sound", "--sound"), ("volume", "--volume"), ("bars", "--bars"),
    ]

    let file: String
    var title: String?
    var titleLine: Int?
    var songs: [SetlistSong] = []
    var advance = SetlistSong.Advance.wait
    var advanceLine = 0
    var landing = SetlistSong.Landing.nextBar
    var line = 0
    var source = ""

    init(file: String) { self.file = file }

    mutating func parse(_ text: String) throws(PatternError) -> Setlist {
        let lines = sourceLines(of: text)
        if text.utf8.count > Setlist.maximumBytes {
            line = 1
            source = lines.first ?? ""
            throw error(
                "the setlist is larger than \(Setlist.maximumBytes / 1024) KiB; a setlist is at most "
                    + "\(Setlist.maximumBytes / 1024) KiB of text",
                at: 1)
        }
        for text in lines {
            line += 1
            source = text
            let tokens = try tokens(of: source)
            guard let first = tokens.first else { continue }
            if first.quoted {
                throw error(
                    "a line starts with a keyword (setlist, song, then, switch), not a quoted title", at: first.column)
            }
            try parseLine(tokens)
        }
        guard !songs.isEmpty else {
            throw PatternError(
                file: file, line: max(1, line), column: 1,
                message: "the setlist has no songs; write one as 'song \"TITLE\" pattern NAME'", sourceLine: source)
        }
        return Setlist(title: title, songs: songs)
    }

    /// The words of a line before its comment, with 1-based columns. `#` starts a comment at the start of the line
    /// or after a space or tab, outside quotes; a word that starts with `"` runs to the next `"`, spaces and `#`
    /// included.
    func tokens(of line: String) throws(PatternError) -> [Token] {
        var result: [Token] = []
        var current: Token?
        var inQuotes = false
        var justClosed = false
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            defer { previous = character }
            if inQuotes {
                if character == "\"" {
                    inQuotes = false
                    justClosed = true
                } else {
                    current!.text.append(character)
                }
                continue
            }
            let isSpace = character == " " || character == "\t"
            if justClosed {
                justClosed = false
                if !isSpace && character != "#" {
                    throw error("expected a space after the closing '\"'", at: offset + 1)
                }
            }
            if character == "#", previous == " " || previous == "\t" || current?.quoted == true { break }
            if isSpace {
                if let token = current { result.append(token) }
                current = nil
            } else if current == nil {
                inQuotes = character == "\""
                current = Token(text: inQuotes ? "" : String(character), column: offset + 1, quoted: inQuotes)
            } else {
                current!.text.append(character)
            }
        }
        if inQuotes, let token = current {
            throw error("this quoted text has no closing '\"'", at: token.column)
        }
        if let token = current { result.append(token) }
        return result
    }

    // MARK: Lines

    private mutating func parseLine(_ tokens: [Token]) throws(PatternError) {
        let word = tokens[0]
        switch word.text {
        case "setlist": try setTitle(tokens)
        case "song": try song(tokens)
        case "then":
            var index = 1
            advance = try parseAdvance(tokens, &index)
            advanceLine = line
            try noMore(tokens, index, after: "'then'")
        case "switch":
            var index = 1
            landing = try parseLanding(tokens, &index)
            try noMore(tokens, index, after: "'switch'")
        default:
            throw error(
                "unknown word '\(word.text)': a line is 'setlist \"TITLE\"', 'song \"TITLE\" SOURCE [SETTINGS]', "
                    + "'then wait', 'then after SECONDS' or 'switch next-bar|now'",
                at: word.column)
        }
    }

    private func noMore(_ tokens: [Token], _ index: Int, after what: String) throws(PatternError) {
        if index < tokens.count {
            throw error("unexpected '\(tokens[index].text)' after \(what)", at: tokens[index].column)
        }
    }

    /// The word at `index`, or an error saying what was expected at the end of the line.
    func take(_ tokens: [Token], _ index: inout Int, _ expected: String) throws(PatternError) -> Token {
        guard index < tokens.count else { throw error("expected \(expected)", at: endColumn) }
        index += 1
        return tokens[index - 1]
    }

    /// A quoted title of 1 to `Setlist.maximumTitleLength` characters.
    func quotedTitle(_ tokens: [Token], _ index: inout Int, of what: String) throws(PatternError) -> String {
        let token = try take(tokens, &index, "\(what)'s title in double quotes")
        guard token.quoted else {
            throw error("expected \(what)'s title in double quotes, found '\(token.text)'", at: token.column)
        }
        let title = token.text.trimmingSpaces()
        guard !title.isEmpty else { throw error("\(what)'s title is empty", at: token.column) }
        guard title.count <= Setlist.maximumTitleLength else {
            throw error(
                "\(what)'s title is \(title.count) characters long; a title has at most "
                    + "\(Setlist.maximumTitleLength)",
                at: token.column)
        }
        return title
    }

    /// `setlist "TITLE"`: once, before the first song.
    private mutating func setTitle(_ tokens: [Token]) throws(PatternError) {
        if let titleLine {
            throw error("the set's title is already given on line \(titleLine)", at: tokens[0].column)
        }
        guard songs.isEmpty else {
            throw error("'setlist' gives the set's title before its first song", at: tokens[0].column)
        }
        var index = 1
        title = try quotedTitle(tokens, &index, of: "the set")
        titleLine = line
        try noMore(tokens, index, after: "the set's title")
    }

    /// `then wait` or `then after SECONDS` (`4s`, `0.5s`), from `index` (after `then`).
    func parseAdvance(_ tokens: [Token], _ index: inout Int) throws(PatternError) -> SetlistSong.Advance {
        let word = try take(tokens, &index, "'wait' or 'after SECONDS' (then after 4s)")
        switch word.text {
        case "wait": return .wait
        case "after":
            let value = try take(tokens, &index, "a gap in seconds (then after 4s)")
            let number = value.text.hasSuffix("s") ? value.text.dropLast() : nil
            guard !value.quoted, let number, let seconds = ClauseParser.decimal(number), seconds <= Setlist.maximumGap
            else {
                throw error(
                    "the gap is a number of seconds from 0 to \(Int(Setlist.maximumGap)) followed by 's' (after 4s), "
                        + "found '\(value.text)'",
                    at: value.column)
            }
            return .after(seconds)
        default:
            throw error("expected 'wait' or 'after SECONDS' after 'then', found '\(word.text)'", at: word.column)
        }
    }

    /// `switch next-bar` or `switch now`, from `index` (after `switch`).
    func parseLanding(_ tokens: [Token], _ index: inout Int) throws(PatternError) -> SetlistSong.Landing {
        let word = try take(tokens, &index, "'next-bar' or 'now' (switch now)")
        switch word.text {
        case "next-bar": return .nextBar
        case "now": return .now
        default:
            throw error("expected 'next-bar' or 'now' after 'switch', found '\(word.text)'", at: word.column)
        }
    }
}

extension String {
    /// The text without spaces and tabs at either end.
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
