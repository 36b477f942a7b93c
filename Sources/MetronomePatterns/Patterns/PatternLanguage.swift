import MetronomeModel

/// The two languages a pattern file may be written in.
public enum PatternLanguage: String, Sendable, CaseIterable {
    /// Metronome's own (`.metro`), documented in Patterns/README.md.
    case metro
    /// klick's tempo-map format, read as it is.
    case klick

    /// The language of a file: by extension (`.metro`, `.klick`), otherwise by its first statement — a klick entry
    /// starts with a number of bars followed by a meter or a tempo; ours with a keyword or `N bars`.
    public static func detect(path: String, text: String) -> PatternLanguage {
        if path.hasSuffix(".metro") { return .metro }
        if path.hasSuffix(".klick") { return .klick }
        for line in sourceLines(of: text) {
            var tokens = MetroParser.tokens(of: line).map(\.text)
            guard !tokens.isEmpty else { continue }
            if let colon = tokens[0].firstIndex(of: ":") {
                let rest = String(tokens[0][tokens[0].index(after: colon)...])
                tokens.removeFirst()
                if !rest.isEmpty { tokens.insert(rest, at: 0) }
            }
            guard let first = tokens.first else { return .metro }
            if first.first?.isNumber == true {
                return tokens.count > 1 && (tokens[1] == "bars" || tokens[1] == "bar") ? .metro : .klick
            }
            return .metro
        }
        return .metro
    }

    /// Parses and expands a file in this language.
    /// - Throws: `PatternLoadError.malformed` for a bad file (exit 65), `.override` when a tempo override takes a
    ///   tempo out of range (exit 64).
    public func score(_ text: String, file: String, tempo: TempoOverride = .none) throws(PatternLoadError)
        -> PatternScore
    {
        switch self {
        case .metro:
            let pattern: MetroPattern
            do { pattern = try MetroPattern.parse(text, file: file) } catch { throw .malformed(error) }
            do { return try pattern.score(tempo: tempo) } catch { throw .override(error) }
        case .klick:
            let map: TempoMap
            do { map = try KlickMap.parse(text, file: file) } catch { throw .malformed(error) }
            var sections: [TempoSection] = []
            var labels: [(name: String, section: Int)] = []
            for section in map.sections {
                if let label = section.label, !labels.contains(where: { $0.name == label }) {
                    labels.append((label, sections.count))
                }
                do { sections.append(try tempo.apply(to: section)) } catch { throw .override(error) }
            }
            return PatternScore(sections: sections, labels: labels)
        }
    }
}

/// Why a pattern file could not be loaded.
public enum PatternLoadError: Error, Sendable {
    /// The file is malformed.
    case malformed(PatternError)
    /// A command-line tempo override cannot apply to it.
    case override(InvalidValue)
}
