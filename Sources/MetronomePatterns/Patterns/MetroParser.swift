import MetronomeModel

/// Reads a `.metro` file line by line into `MetroPattern`'s tree, keeping the sticky settings and the open groups.
struct MetroParser: LineParsing {
    typealias Token = (text: String, column: Int)

    /// The sticky settings: what a section gets when its own line does not say otherwise.
    struct Settings {
        var tempo = MetroPattern.TempoSpec.constant(120)
        /// Quarter notes per beat of the unit the last tempo was written in (1.5 for `4.=`), for trainer numbers.
        var tempoFactor = 1.0
        var meter = Meter.fourFour
        var groups: [Int]?
        var accents: AccentPattern?
        var subdivision = 1
        var subdivisionLevels: [BeatLevel] = [.normal]
        var swing: Swing?
        var volume: Float = 1
        var gap: GapPractice?
        var layers: [PolyLayer] = []
        var noteTrack: NoteTrack?
    }

    /// An open `repeat` and where it was written.
    struct OpenGroup {
        var group: MetroPattern.GroupSpec
        var line: Int
        var source: String
        var column: Int
    }

    /// Words the note track will use; refused until it exists so files written now stay valid later.
    static let reservedWords: Set<String> = ["chord", "notes", "track"]
    /// Keywords that may start a setting line or follow a section's length.
    static let clauseWords: Set<String> = [
        "tempo", "meter", "accent", "subdivide", "swing", "volume", "gap", "layer", "trainer", "chords", "arp",
        "octaves", "gate",
    ]

    let file: String
    var settings = Settings()
    var items: [MetroPattern.Item] = []
    var open: [OpenGroup] = []
    var defined: [String: MetroPattern.Item] = [:]
    var countIn: Int?
    var sound: ClickStyle?
    var instrument: BuiltInInstrument?
    var soundFont: SoundFontReference?
    var summary: String?
    var headerOpen = true
    var foreverLine: Int?
    var expandedTotal = 0
    var line = 0
    var source = ""

    init(file: String) { self.file = file }

    mutating func parse(_ text: String) throws(PatternError) -> MetroPattern {
        for text in sourceLines(of: text) {
            line += 1
            source = text
            let tokens = MetroParser.tokens(of: source)
            if tokens.isEmpty {
                if headerOpen, let comment = MetroParser.comment(of: source), summary == nil, !comment.isEmpty {
                    summary = comment
                }
                continue
            }
            headerOpen = false
            try parseLine(tokens)
        }
        if let group = open.last {
            throw PatternError(
                file: file, line: group.line, column: group.column, message: "this 'repeat' has no 'end'",
                sourceLine: group.source)
        }
        guard !items.isEmpty else {
            throw PatternError(
                file: file, line: max(1, line), column: 1,
                message: "the file has no sections; write one as 'N bars' or 'forever'", sourceLine: source)
        }
        return MetroPattern(
            items: items, countInBars: countIn ?? 0, sound: sound, instrument: instrument, soundFont: soundFont,
            summary: summary)
    }

    /// The words of a line before its comment, with 1-based columns. `#` starts a comment at the start of the line
    /// or after a space or tab (so `F#` stays a word for the note track).
    static func tokens(of line: String) -> [Token] {
        var result: [Token] = []
        var current = ""
        var start = 0
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if character == "#", previous == " " || previous == "\t" { break }
            if character == " " || character == "\t" {
                if !current.isEmpty { result.append((current, start + 1)) }
                current = ""
            } else {
                if current.isEmpty { start = offset }
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { result.append((current, start + 1)) }
        return result
    }

    /// The text of a comment-only line, without `#` and surrounding spaces; nil for other lines.
    static func comment(of line: String) -> String? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "#" else { return nil }
        let text = trimmed.dropFirst().drop { $0 == " " || $0 == "#" }
        return String(text.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    // MARK: Lines

    private mutating func parseLine(_ tokens: [Token]) throws(PatternError) {
        var tokens = tokens
        var label: String?
        var labelColumn = 0
        if let colon = tokens[0].text.firstIndex(of: ":") {
            let first = tokens.removeFirst()
            let name = String(first.text[..<colon])
            let rest = String(first.text[first.text.index(after: colon)...])
            if !rest.isEmpty { tokens.insert((rest, first.column + name.count + 1), at: 0) }
            try checkLabel(name, column: first.column)
            label = name
            labelColumn = first.column
            guard !tokens.isEmpty else {
                throw error("expected a section ('N bars' or 'forever') or 'repeat' after the label", at: endColumn)
            }
        }
        let word = tokens[0]
        if MetroParser.reservedWords.contains(word.text) {
            throw error(
                "'\(word.text)' is reserved for later note-track features",
                at: word.column)
        }
        switch word.text {
        case "repeat": try openGroup(tokens, label: label, labelColumn: labelColumn)
        case "end":
            try noLabel(label, labelColumn, "end")
            try closeGroup(tokens)
        case "play":
            try noLabel(label, labelColumn, "play")
            try play(tokens)
        case "count-in":
            try noLabel(label, labelColumn, "count-in")
            try fileDirective(tokens)
        case "sound", "instrument":
            try noLabel(label, labelColumn, word.text)
            try fileDirective(tokens)
        case "forever":
            try section(tokens, label: label, labelColumn: labelColumn)
        case _ where word.text.first?.isNumber == true:
            try section(tokens, label: label, labelColumn: labelColumn)
        case _ where MetroParser.clauseWords.contains(word.text):
            try noLabel(label, labelColumn, "a setting")
            var clauses = ClauseParser(parser: self, tokens: tokens, index: 0)
            let parsed = try clauses.parseAll()
            if let trainer = parsed.trainerColumn {
                throw error(
                    "'trainer' belongs on a section line or a 'repeat' line, not on a setting line", at: trainer)
            }
            settings = try parsed.applied(to: settings, parser: self)
        default:
            throw error(
                "unknown word '\(word.text)': a line is a section ('8 bars', 'forever'), a setting (tempo, meter, "
                    + "accent, subdivide, swing, volume, gap, layer, chords, arp, octaves, gate), 'repeat N' … 'end', "
                    + "'play LABEL', 'count-in N', 'sound NAME' or 'instrument NAME'",
                at: word.column)
        }
    }

    private func checkLabel(_ name: String, column: Int) throws(PatternError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
            name.first?.isLetter == true
        else {
            throw error("a label starts with a letter and holds letters, digits, '_' and '-', then ':'", at: column)
        }
        if defined[name] != nil || open.contains(where: { $0.group.label == name }) {
            throw error("the label '\(name)' is already used; labels must be unique", at: column)
        }
    }

    private func noLabel(_ label: String?, _ column: Int, _ what: String) throws(PatternError) {
        if label != nil { throw error("a label names a section or a 'repeat', not \(what)", at: column) }
    }

    private func checkNotAfterForever(_ column: Int) throws(PatternError) {
        if let foreverLine {
            throw error("nothing can play after the section on line \(foreverLine), which plays forever", at: column)
        }
    }

    /// A repeat count after a length or a `play`, written `xR` or `x R` as the grammar allows: the count and the
    /// words it took, or nil when `tokens[index]` does not start one.
    private func repeatCount(_ tokens: [Token], at index: Int) throws(PatternError) -> (count: Int, words: Int)? {
        let token = tokens[index]
        let digits: Substring
        let words: Int
        if token.text == "x" {
            guard index + 1 < tokens.count else {
                throw error("expected a repeat count after 'x', as in 'x 2'", at: endColumn)
            }
            digits = Substring(tokens[index + 1].text)
            words = 2
        } else if token.text.first == "x", token.text.count > 1 {
            digits = token.text.dropFirst()
            words = 1
        } else {
            return nil
        }
        guard digits.allSatisfy(\.isNumber) else {
            if words == 1 { return nil }
            throw error("expected a repeat count after 'x', found '\(digits)'", at: tokens[index + 1].column)
        }
        guard let count = Int(digits), (1...MetroPattern.maximumRepeats).contains(count) else {
            throw error("a repeat count is x1 to x\(MetroPattern.maximumRepeats)", at: token.column)
        }
        return (count, words)
    }

    private mutating func section(_ tokens: [Token], label: String?, labelColumn: Int) throws(PatternError) {
        try checkNotAfterForever(tokens[0].column)
        var index = 0
        var bars: Int?
        if tokens[0].text == "forever" {
            index = 1
        } else {
            guard tokens[0].text.allSatisfy(\.isNumber), let count = Int(tokens[0].text),
                (1...MetroPattern.maximumBars).contains(count)
            else {
                throw error(
                    "a number of bars is a whole number from 1 to \(MetroPattern.maximumBars)", at: tokens[0].column)
            }
            guard tokens.count > 1, tokens[1].text == "bars" || tokens[1].text == "bar" else {
                let column = tokens.count > 1 ? tokens[1].column : endColumn
                throw error("expected 'bars' after the number of bars (as in '8 bars')", at: column)
            }
            bars = count
            index = 2
        }
        var repeats = 1
        if index < tokens.count, let written = try repeatCount(tokens, at: index) {
            if bars == nil { throw error("a section that plays forever cannot repeat", at: tokens[index].column) }
            repeats = written.count
            index += written.words
        }
        var clauses = ClauseParser(parser: self, tokens: tokens, index: index)
        let parsed = try clauses.parseAll()
        let own = try parsed.applied(to: settings, parser: self)
        var trainer: MetroPattern.Trainer?
        if let column = parsed.trainerColumn, let written = parsed.trainer {
            trainer = try checkedTrainer(written, start: own.tempo, column: column, repeats: repeats, isGroup: false)
        }
        if bars == nil {
            if !open.isEmpty {
                throw error("a section inside 'repeat' cannot play forever", at: tokens[0].column)
            }
            if case .ramp = own.tempo {
                throw error("a tempo ramp needs a number of bars; 'forever' cannot ramp", at: tokens[0].column)
            }
        }
        let spec = MetroPattern.SectionSpec(
            label: label, bars: bars, repeats: repeats, tempo: own.tempo, meter: own.meter, groups: own.groups,
            accents: own.accents, subdivision: own.subdivision, subdivisionLevels: own.subdivisionLevels,
            swing: own.swing, volume: own.volume, gap: own.gap, layers: own.layers, noteTrack: own.noteTrack,
            trainer: trainer)
        try add(.section(spec), column: labelColumn > 0 ? labelColumn : tokens[0].column)
        if bars == nil { foreverLine = line }
    }

    /// Checks a trainer against the tempo it starts from and converts its numbers to quarter notes per minute.
    private func checkedTrainer(
        _ written: ClauseParser.WrittenTrainer, start: MetroPattern.TempoSpec, column: Int, repeats: Int,
        isGroup: Bool
    ) throws(PatternError) -> MetroPattern.Trainer {
        let trainer = MetroPattern.Trainer(
            step: written.step * settings.tempoFactor(written.factor), every: written.every,
            perRepeat: written.perRepeat, limit: written.limit * settings.tempoFactor(written.factor))
        guard trainer.limit >= 1, trainer.limit <= 1000 else {
            throw error(
                "the trainer's limit is \(ClauseParser.number(trainer.limit)) quarter notes per minute; tempos must "
                    + "be from 1 to 1000",
                at: column)
        }
        if isGroup, !trainer.perRepeat {
            throw error("a 'repeat' trainer climbs every N repeats, not every N bars", at: column)
        }
        if trainer.perRepeat, repeats < 2 {
            throw error("a trainer that climbs every N repeats needs a repeat count (x2 or more)", at: column)
        }
        guard !isGroup else { return trainer }
        guard case .constant(let tempo) = start else {
            throw error("a tempo trainer starts from a constant tempo, not a ramp", at: column)
        }
        do { try trainer.checkMoves(from: tempo) } catch { throw self.error(error.reason, at: column) }
        return trainer
    }

    private mutating func openGroup(_ tokens: [Token], label: String?, labelColumn: Int) throws(PatternError) {
        try checkNotAfterForever(tokens[0].column)
        guard tokens.count > 1, let count = Int(tokens[1].text), tokens[1].text.allSatisfy(\.isNumber),
            (1...MetroPattern.maximumRepeats).contains(count)
        else {
            throw error(
                "'repeat' needs a count from 1 to \(MetroPattern.maximumRepeats) (as in 'repeat 2')",
                at: tokens.count > 1 ? tokens[1].column : endColumn)
        }
        var clauses = ClauseParser(parser: self, tokens: tokens, index: 2)
        let parsed = try clauses.parseAll()
        if let other = parsed.firstNonTrainerColumn {
            throw error("a 'repeat' line takes only a trainer; settings go on their own lines", at: other)
        }
        var trainer: MetroPattern.Trainer?
        if let column = parsed.trainerColumn, let written = parsed.trainer {
            if open.contains(where: { $0.group.trainer != nil }) {
                throw error("a trainer cannot sit inside a 'repeat' that has one", at: column)
            }
            trainer = try checkedTrainer(written, start: settings.tempo, column: column, repeats: count, isGroup: true)
        }
        if label != nil { defined[label!] = .group(MetroPattern.GroupSpec(label: label, repeats: 0, items: [])) }
        open.append(
            OpenGroup(
                group: MetroPattern.GroupSpec(label: label, repeats: count, trainer: trainer, items: []), line: line,
                source: source, column: labelColumn > 0 ? labelColumn : tokens[0].column))
    }

    private mutating func closeGroup(_ tokens: [Token]) throws(PatternError) {
        if tokens.count > 1 { throw error("unexpected '\(tokens[1].text)' after 'end'", at: tokens[1].column) }
        guard let closed = open.popLast() else {
            throw error("'end' without a 'repeat' to close", at: tokens[0].column)
        }
        guard !closed.group.items.isEmpty else { throw error("this 'repeat' holds no sections", at: tokens[0].column) }
        try add(.group(closed.group), column: tokens[0].column)
    }

    private mutating func play(_ tokens: [Token]) throws(PatternError) {
        try checkNotAfterForever(tokens[0].column)
        guard tokens.count > 1 else { throw error("'play' needs the label of an earlier section", at: endColumn) }
        let name = tokens[1].text
        guard var item = defined[name] else {
            let known = defined.keys.sorted()
            let list = known.isEmpty ? "no labels are defined above" : "defined above: " + known.joined(separator: ", ")
            throw error("no section or group above is labelled '\(name)' (\(list))", at: tokens[1].column)
        }
        if case .group(let group) = item, group.repeats == 0 {
            throw error("'\(name)' is still open; a group cannot play itself", at: tokens[1].column)
        }
        var repeats = 1
        var end = 2
        if tokens.count > 2 {
            guard let written = try repeatCount(tokens, at: 2) else {
                throw error("expected a repeat count like x2, found '\(tokens[2].text)'", at: tokens[2].column)
            }
            repeats = written.count
            end += written.words
        }
        if tokens.count > end {
            throw error("unexpected '\(tokens[end].text)' after 'play'", at: tokens[end].column)
        }
        switch item {
        case .section(var section):
            if section.bars == nil {
                throw error("'\(name)' plays forever and cannot play again", at: tokens[1].column)
            }
            section.repeats *= repeats
            item = .section(section)
        case .group(let group):
            item = .group(MetroPattern.GroupSpec(label: name, repeats: repeats, trainer: nil, items: [item]))
            _ = group
        }
        try add(item, column: tokens[0].column, defining: false)
    }

    /// `instrument soundfont FILE [program N] [bank B]`: the note track plays a SoundFont preset (a path without
    /// spaces; program 0 and bank 0 unless given).
    private mutating func soundFontDirective(_ tokens: [Token]) throws(PatternError) {
        let word = tokens[0]
        guard instrument == nil, soundFont == nil else { throw error("'instrument' is given twice", at: word.column) }
        guard tokens.count >= 3 else {
            throw error("'instrument soundfont' takes a SoundFont file, then 'program N' and 'bank B'", at: endColumn)
        }
        var reference = SoundFontReference(path: tokens[2].text)
        var index = 3
        while index < tokens.count {
            let key = tokens[index]
            guard key.text == "program" || key.text == "bank" else {
                throw error("expected 'program N' or 'bank B' after the SoundFont, found '\(key.text)'", at: key.column)
            }
            guard index + 1 < tokens.count else { throw error("'\(key.text)' takes a number", at: endColumn) }
            let value = tokens[index + 1]
            let range = key.text == "program" ? 0...127 : 0...128
            guard let number = Int(value.text), range.contains(number) else {
                throw error(
                    "\(key.text) must be a whole number from \(range.lowerBound) to \(range.upperBound), not "
                        + "'\(value.text)'", at: value.column)
            }
            if key.text == "program" { reference.program = number } else { reference.bank = number }
            index += 2
        }
        soundFont = reference
    }

    private mutating func fileDirective(_ tokens: [Token]) throws(PatternError) {
        let word = tokens[0]
        if !items.isEmpty || !open.isEmpty {
            throw error("'\(word.text)' belongs before the first section", at: word.column)
        }
        if word.text == "instrument", tokens.count >= 2, tokens[1].text == "soundfont" {
            return try soundFontDirective(tokens)
        }
        guard tokens.count == 2 else {
            let column = tokens.count > 2 ? tokens[2].column : endColumn
            let what =
                word.text == "count-in"
                ? "one number of bars" : word.text == "sound" ? "one click style name" : "one instrument name"
            throw error("'\(word.text)' takes \(what)", at: column)
        }
        let value = tokens[1]
        if word.text == "instrument" {
            guard instrument == nil, soundFont == nil else {
                throw error("'instrument' is given twice", at: word.column)
            }
            guard let chosen = BuiltInInstrument(rawValue: value.text) else {
                let names = BuiltInInstrument.allCases.map(\.rawValue).joined(separator: ", ")
                throw error("unknown instrument '\(value.text)'; choose one of \(names)", at: value.column)
            }
            instrument = chosen
        } else if word.text == "sound" {
            guard sound == nil else { throw error("'sound' is given twice", at: word.column) }
            guard let style = ClickStyle(rawValue: value.text) else {
                let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
                throw error("unknown sound '\(value.text)'; choose one of \(names)", at: value.column)
            }
            sound = style
        } else {
            guard countIn == nil else { throw error("'count-in' is given twice", at: word.column) }
            guard let bars = Int(value.text), value.text.allSatisfy(\.isNumber),
                (0...TempoMap.maximumCountInBars).contains(bars)
            else {
                throw error("the count-in is a whole number of bars from 0 to 16", at: value.column)
            }
            countIn = bars
        }
    }

    /// Adds an item to the innermost open group or the file, guarding the expanded size.
    private mutating func add(_ item: MetroPattern.Item, column: Int, defining: Bool = true) throws(PatternError) {
        if defining, let label = item.label { defined[label] = item }
        if open.isEmpty {
            items.append(item)
        } else {
            open[open.count - 1].group.items.append(item)
        }
        // Sections so far: the file's finished items, plus this item as often as the open groups repeat it.
        // Saturating arithmetic: a product past Int.max stays above the ceiling instead of wrapping below it.
        let nested = open.reduce(1) { $0.saturatingMultiplied(by: $1.group.repeats) }
        let count = item.expandedCount
        if open.isEmpty { expandedTotal = expandedTotal.saturatingAdding(count) }
        let ofItem = count.saturatingMultiplied(by: nested)
        if expandedTotal > MetroPattern.maximumSections
            || ofItem > MetroPattern.maximumSections - (open.isEmpty ? 0 : expandedTotal)
        {
            throw error(
                "the file expands to more than \(MetroPattern.maximumSections) sections; use fewer repeats",
                at: column)
        }
    }
}

extension MetroParser.Settings {
    /// Quarter notes per minute for one unit of a number written in a tempo's note value.
    func tempoFactor(_ written: Double?) -> Double { written ?? tempoFactor }
}
