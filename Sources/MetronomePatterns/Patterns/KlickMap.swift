import MetronomeModel

/// Reads klick tempo-map files as they are, so a klick user brings their maps unchanged.
///
/// One entry per line: `[label:] bars [meter] tempo[-tempo2 | ,tempo2,…] [pattern] [volume]`, `#` starts a comment,
/// blank lines are skipped. As in klick: the meter defaults to 4/4; `tempo-tempo2` ramps linearly over the entry's
/// beats; a comma list gives one tempo per beat (bars × beats of them); the pattern has one letter per beat (`X`
/// accent, `x` normal, `.` silent — `o`, soft, is accepted too) and defaults to an accent on beat one; the volume
/// defaults to 1 (here it must lie in 0…1).
public enum KlickMap {
    /// Parses a whole file's text.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in error messages.
    ///   - sampleRate: the output rate the map's frames are for.
    /// - Returns: the map, one section per entry.
    /// - Throws: `PatternError` at the first malformed entry, or when there is none.
    public static func parse(_ text: String, file: String, sampleRate: SampleRate = .standard)
        throws(PatternError) -> TempoMap
    {
        var sections: [TempoSection] = []
        var entries: [(line: Int, source: String)] = []
        var lineNumber = 0
        for line in sourceLines(of: text) {
            lineNumber += 1
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let tokens = KlickMap.tokens(of: String(content))
            guard !tokens.isEmpty else { continue }
            var entry = EntryParser(tokens: tokens, file: file, line: lineNumber, source: line)
            sections.append(try entry.parse())
            entries.append((lineNumber, line))
        }
        if let index = TempoMap.firstSectionPastMaximumLength(sections) {
            throw PatternError(
                file: file, line: entries[index].line, column: 1,
                message: "the map grows longer than \(TempoMap.maximumQuarterNotes) quarter notes here",
                sourceLine: entries[index].source)
        }
        guard !sections.isEmpty else {
            throw PatternError(
                file: file, line: max(1, lineNumber), column: 1, message: "the file holds no tempo-map entries",
                sourceLine: "")
        }
        do {
            return try TempoMap(sections: sections, sampleRate: sampleRate)
        } catch {
            throw PatternError(file: file, line: 1, column: 1, message: error.reason, sourceLine: "")
        }
    }

    /// Whitespace-separated words with their 1-based columns.
    static func tokens(of text: String) -> [(text: String, column: Int)] {
        var result: [(String, Int)] = []
        var current = ""
        var start = 0
        for (offset, character) in text.enumerated() {
            if character == " " || character == "\t" {
                if !current.isEmpty { result.append((current, start + 1)) }
                current = ""
            } else {
                if current.isEmpty { start = offset }
                current.append(character)
            }
        }
        if !current.isEmpty { result.append((current, start + 1)) }
        return result
    }
}
