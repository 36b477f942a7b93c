import MetronomeModel

/// Parses the clauses of a setting, section or `repeat` line: `tempo 4.=60-80`, `meter 7/8 2+2+3`, `accent X.x.`,
/// `subdivide 3 .x`, `swing 8 50%`, `volume 80%`, `gap play 3 mute 1`, `layer 3 clave`, `trainer +4 every 4 bars to
/// 140`, and their `off` forms.
struct ClauseParser {
    typealias Token = MetroParser.Token

    /// A trainer as written, in the unit of its section's tempo.
    struct WrittenTrainer {
        var step: Double
        var every: Int
        var perRepeat: Bool
        var limit: Double
        /// The note factor of the line's own tempo clause, if it has one.
        var factor: Double?
    }

    /// What one line says.
    struct Parsed {
        var tempo: (spec: MetroPattern.TempoSpec, factor: Double)?
        var meter: (meter: Meter, groups: [Int]?)?
        var accent: Token?
        var subdivide: (count: Int, levels: [BeatLevel]?)?
        var swing: Swing??
        var volume: Float?
        var gap: GapPractice??
        var layers: [PolyLayer]?
        /// `chords …` (an empty list: `chords off`).
        var chords: [ChordSymbol]?
        var arpeggio: (order: ArpeggioOrder?, rate: StepRate?)?
        var octaves: Int?
        var gate: Double?
        var trainer: WrittenTrainer?
        var trainerColumn: Int?
        /// Column of the first note-shaping clause (arp, octaves, gate).
        var arpeggioColumn: Int?
        /// Column of the first clause other than a trainer, if any.
        var firstNonTrainerColumn: Int?

        /// The settings with this line's clauses on top. A new meter drops accents written for the old one.
        func applied(to base: MetroParser.Settings, parser: MetroParser) throws(PatternError)
            -> MetroParser.Settings
        {
            var settings = base
            if let tempo {
                settings.tempo = tempo.spec
                settings.tempoFactor = tempo.factor
            }
            if let meter {
                settings.meter = meter.meter
                settings.groups = meter.groups
                settings.accents = nil
            }
            if let accent {
                do {
                    settings.accents = try AccentPattern(parsing: accent.text, for: settings.meter)
                } catch {
                    throw parser.error(error.reason, at: accent.column)
                }
            }
            if let subdivide {
                settings.subdivision = subdivide.count
                settings.subdivisionLevels = subdivide.levels ?? [.normal]
            }
            if let swing { settings.swing = swing }
            if let volume { settings.volume = volume }
            if let gap { settings.gap = gap }
            if let layers { settings.layers = layers }
            if let chords {
                // New chords keep the arpeggio settings in force; `chords off` removes the track.
                var track = settings.noteTrack ?? NoteTrack(chords: chords)
                track.chords = chords
                settings.noteTrack = chords.isEmpty ? nil : track
            }
            let shaping = arpeggio != nil || octaves != nil || gate != nil
            if shaping, settings.noteTrack == nil, let column = arpeggioColumn {
                throw parser.error("'arp', 'octaves' and 'gate' shape a note track; give it 'chords' first", at: column)
            }
            if var track = settings.noteTrack {
                if let arpeggio {
                    track.order = arpeggio.order
                    if let rate = arpeggio.rate { track.rate = rate }
                }
                if let octaves { track.octaves = octaves }
                if let gate { track.gate = gate }
                settings.noteTrack = track
            }
            return settings
        }
    }

    let parser: MetroParser
    let tokens: [Token]
    var index: Int

    init(parser: MetroParser, tokens: [Token], index: Int) {
        self.parser = parser
        self.tokens = tokens
        self.index = index
    }

    private var current: Token? { index < tokens.count ? tokens[index] : nil }

    private func error(_ message: String, at column: Int) -> PatternError { parser.error(message, at: column) }

    /// The next word, or an error saying what was expected at the end of the line.
    private mutating func take(_ expected: String) throws(PatternError) -> Token {
        guard let token = current else { throw error("expected \(expected)", at: parser.endColumn) }
        index += 1
        return token
    }

    mutating func parseAll() throws(PatternError) -> Parsed {
        var parsed = Parsed()
        var seen: Set<String> = []
        while let word = current {
            index += 1
            guard MetroParser.clauseWords.contains(word.text) else {
                if MetroParser.reservedWords.contains(word.text) {
                    throw error(
                        "'\(word.text)' is reserved for later note-track features",
                        at: word.column)
                }
                throw error(
                    "unknown setting '\(word.text)'; settings are tempo, meter, accent, subdivide, swing, volume, "
                        + "gap, layer and trainer",
                    at: word.column)
            }
            if word.text != "layer", !seen.insert(word.text).inserted {
                throw error("'\(word.text)' is given twice on this line", at: word.column)
            }
            if word.text != "trainer", parsed.firstNonTrainerColumn == nil {
                parsed.firstNonTrainerColumn = word.column
            }
            switch word.text {
            case "tempo": parsed.tempo = try tempo()
            case "meter": parsed.meter = try meter()
            case "accent":
                let letters = try take("accent letters (X accent, x normal, o soft, . silent)")
                parsed.accent = letters
            case "subdivide": parsed.subdivide = try subdivide()
            case "swing": parsed.swing = .some(try swing())
            case "volume": parsed.volume = try volume()
            case "gap": parsed.gap = .some(try gap())
            case "layer":
                if let layer = try layer() {
                    if parsed.layers == [] { throw error("'layer off' cannot go with other layers", at: word.column) }
                    parsed.layers = (parsed.layers ?? []) + [layer]
                } else {
                    if let layers = parsed.layers, !layers.isEmpty {
                        throw error("'layer off' cannot go with other layers", at: word.column)
                    }
                    parsed.layers = []
                }
            case "chords": parsed.chords = try chords()
            case "arp":
                parsed.arpeggioColumn = parsed.arpeggioColumn ?? word.column
                parsed.arpeggio = try arpeggio()
            case "octaves":
                parsed.arpeggioColumn = parsed.arpeggioColumn ?? word.column
                let value = try take("a number of octaves, 1 to 4")
                guard let count = Int(value.text), (1...4).contains(count) else {
                    throw error("octaves is a whole number from 1 to 4", at: value.column)
                }
                parsed.octaves = count
            case "gate":
                parsed.arpeggioColumn = parsed.arpeggioColumn ?? word.column
                let value = try take("a gate from 0.05 to 1")
                guard let gate = ClauseParser.decimal(Substring(value.text)), NoteTrack.gateRange.contains(gate)
                else {
                    throw error(
                        "the gate is a number from 0.05 to 1 (the share of a step a note sounds)", at: value.column)
                }
                parsed.gate = gate
            default:
                parsed.trainerColumn = word.column
                parsed.trainer = try trainer()
            }
        }
        if var trainer = parsed.trainer {
            trainer.factor = parsed.tempo?.factor
            parsed.trainer = trainer
        }
        return parsed
    }

    /// A number as people write it: no exponent, no sign, no hex.
    static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            text.filter({ $0 == "." }).count <= 1, text != "."
        else { return nil }
        return Double(text)
    }

    /// A tempo value for messages: "90" or "92.5"; a value too large for a whole number keeps Swift's form
    /// ("1e+20"), so no value read from text can trap here.
    static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        guard rounded == rounded.rounded(), let whole = Int(exactly: rounded) else { return String(rounded) }
        return String(whole)
    }

    /// `[note[.]=]bpm[-bpm]`.
    private mutating func tempo() throws(PatternError) -> (MetroPattern.TempoSpec, Double) {
        let word = try take("a tempo (120, 100-140, or with its note value: 4.=60)")
        var text = Substring(word.text)
        var column = word.column
        var factor = 1.0
        if let equals = text.firstIndex(of: "=") {
            var note = text[..<equals]
            let dotted = note.hasSuffix(".")
            if dotted { note = note.dropLast() }
            guard let value = Int(note), [1, 2, 4, 8, 16, 32].contains(value), note.allSatisfy(\.isNumber) else {
                throw error(
                    "the beat unit before '=' is a note value 1, 2, 4, 8, 16 or 32, dotted with '.' (4.=60)",
                    at: column)
            }
            factor = 4.0 / Double(value) * (dotted ? 1.5 : 1)
            column += text.distance(from: text.startIndex, to: equals) + 1
            text = text[text.index(after: equals)...]
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw error("a tempo is one number or a ramp A-B", at: column) }
        var values: [Double] = []
        for part in parts {
            guard let value = ClauseParser.decimal(part) else {
                throw error("expected a tempo number, found '\(part)'", at: column)
            }
            let quarters = value * factor
            guard quarters >= 1, quarters <= 1000 else {
                let what = factor == 1 ? "" : " (\(ClauseParser.number(quarters)) quarter notes per minute)"
                throw error(
                    "tempo \(part)\(what) is out of range; tempos must be from 1 to 1000 "
                        + "quarter notes per minute",
                    at: column)
            }
            values.append(quarters)
            column += part.count + 1
        }
        if values.count == 2, values[0] != values[1] { return (.ramp(values[0], values[1]), factor) }
        return (.constant(values[0]), factor)
    }

    /// `n/d [a+b+…]`.
    private mutating func meter() throws(PatternError) -> (Meter, [Int]?) {
        let word = try take("a meter such as 4/4 or 7/8")
        let meter: Meter
        do { meter = try Meter(parsing: word.text) } catch { throw self.error(error.reason, at: word.column) }
        guard let next = current, next.text.contains("+") else { return (meter, nil) }
        index += 1
        do { return (meter, try SectionSettings.grouping(parsing: next.text, for: meter)) } catch {
            throw self.error(error.reason, at: next.column)
        }
    }

    private static func levels(_ text: String) -> [BeatLevel]? {
        var levels: [BeatLevel] = []
        for letter in text {
            guard let level = BeatLevel(letter: letter) else { return nil }
            levels.append(level)
        }
        return levels.isEmpty ? nil : levels
    }

    /// `N [letters]`.
    private mutating func subdivide() throws(PatternError) -> (Int, [BeatLevel]?) {
        let word = try take("a number of clicks per beat, 1 to 16")
        guard let count = Int(word.text), word.text.allSatisfy(\.isNumber),
            (1...TempoSection.maximumSubdivision).contains(count)
        else {
            throw error("subdivide takes a whole number of clicks per beat from 1 to 16", at: word.column)
        }
        guard let next = current, let levels = ClauseParser.levels(next.text) else { return (count, nil) }
        index += 1
        guard levels.count == 1 || levels.count == count - 1 else {
            throw error(
                "give one letter for every subdivision or \(count - 1) (one per click after the beat), found "
                    + "\(levels.count)",
                at: next.column)
        }
        return (count, levels)
    }

    /// `8|16 N%` or `off`.
    private mutating func swing() throws(PatternError) -> Swing? {
        let word = try take("8 or 16 and an amount (swing 8 50%), or 'off'")
        if word.text == "off" { return nil }
        guard let note = Int(word.text), Swing.notes.contains(note) else {
            throw error("swing applies to 8 (eighths) or 16 (sixteenths), or is 'off'", at: word.column)
        }
        let amountWord = try take("a swing amount from 0% to 75%")
        do { return try Swing(note: note, amount: try SectionSettings.swingAmount(parsing: amountWord.text)) } catch {
            throw self.error(error.reason, at: amountWord.column)
        }
    }

    /// `0.8` or `80%`.
    private mutating func volume() throws(PatternError) -> Float {
        let word = try take("a volume from 0 to 1 or 0% to 100%")
        let isPercent = word.text.hasSuffix("%")
        let digits = isPercent ? word.text.dropLast() : Substring(word.text)
        guard let value = ClauseParser.decimal(digits).map({ isPercent ? $0 / 100 : $0 }), value <= 1 else {
            throw error("a volume is a number from 0 to 1, or 0% to 100%", at: word.column)
        }
        return Float(value)
    }

    /// `play N mute M` or `off`.
    private mutating func gap() throws(PatternError) -> GapPractice? {
        let word = try take("'play N mute M' or 'off'")
        if word.text == "off" { return nil }
        guard word.text == "play" else { throw error("expected 'play N mute M' or 'off'", at: word.column) }
        let play = try count("a number of bars to play")
        let mute = try take("'mute' and a number of bars")
        guard mute.text == "mute" else { throw error("expected 'mute' and a number of bars", at: mute.column) }
        let muted = try count("a number of bars to mute")
        do { return try GapPractice(play: play.value, mute: muted.value) } catch {
            throw self.error(error.reason, at: play.column)
        }
    }

    private mutating func count(_ expected: String) throws(PatternError) -> (value: Int, column: Int) {
        let word = try take(expected)
        guard let value = Int(word.text), word.text.allSatisfy(\.isNumber), value >= 1 else {
            throw error("expected \(expected) (a whole number from 1), found '\(word.text)'", at: word.column)
        }
        return (value, word.column)
    }

    /// `N [sound] [letters]` or `off`.
    private mutating func layer() throws(PatternError) -> PolyLayer? {
        let word = try take("a number of clicks per bar, or 'off'")
        if word.text == "off" { return nil }
        guard let count = Int(word.text), word.text.allSatisfy(\.isNumber), (1...PolyLayer.maximumCount).contains(count)
        else {
            throw error("a layer plays from 1 to 64 clicks per bar, or is 'off'", at: word.column)
        }
        var sound = ClickStyle.clave
        if let next = current, let style = ClickStyle(rawValue: next.text) {
            sound = style
            index += 1
        }
        var levels: [BeatLevel]?
        if let next = current, let letters = ClauseParser.levels(next.text) {
            guard letters.count == count else {
                throw error(
                    "the layer has \(count) clicks per bar but \(letters.count) letters", at: next.column)
            }
            levels = letters
            index += 1
        }
        do { return try PolyLayer(count: count, sound: sound, levels: levels) } catch {
            throw self.error(error.reason, at: word.column)
        }
    }

    /// `chords C Am F G` (until the next keyword) or `chords off`.
    private mutating func chords() throws(PatternError) -> [ChordSymbol] {
        guard let first = current else { throw error("expected chords (C Am F G) or 'off'", at: parser.endColumn) }
        if first.text == "off" {
            index += 1
            return []
        }
        var chords: [ChordSymbol] = []
        while let word = current, !MetroParser.clauseWords.contains(word.text) {
            index += 1
            if word.text == "|" { continue }
            do { chords.append(try ChordSymbol(parsing: word.text)) } catch {
                throw self.error("chord \(chords.count + 1) '\(word.text)': \(error.reason)", at: word.column)
            }
        }
        guard !chords.isEmpty else { throw error("expected chords (C Am F G) or 'off'", at: first.column) }
        return chords
    }

    /// `arp STYLE [RATE]` or `arp off` (block chords).
    private mutating func arpeggio() throws(PatternError) -> (ArpeggioOrder?, StepRate?) {
        let word = try take("an arpeggio style (up, upDown, …) or 'off'")
        if word.text == "off" { return (nil, nil) }
        guard let order = ArpeggioOrder(rawValue: word.text) else {
            let names = ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")
            throw error("unknown arpeggio style '\(word.text)'; choose one of \(names), or off", at: word.column)
        }
        guard let next = current, next.text.hasPrefix("1/") else { return (order, nil) }
        index += 1
        guard let rate = StepRate(rawValue: next.text) else {
            throw error("the step rate is 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32", at: next.column)
        }
        return (order, rate)
    }

    /// `+STEP every N bars|repeats to LIMIT`.
    private mutating func trainer() throws(PatternError) -> WrittenTrainer {
        let stepWord = try take("a step such as +4 (BPM added each time)")
        let step: Double
        do { step = try SectionSettings.trainerStep(parsing: stepWord.text) } catch {
            throw self.error(error.reason, at: stepWord.column)
        }
        let every = try take("'every N bars' or 'every N repeats'")
        guard every.text == "every" else {
            throw error("expected 'every N bars' or 'every N repeats'", at: every.column)
        }
        let count = try count("how many bars or repeats between steps")
        let unit = try take("'bars' or 'repeats'")
        let perRepeat: Bool
        switch unit.text {
        case "bar", "bars": perRepeat = false
        case "repeat", "repeats": perRepeat = true
        default: throw error("expected 'bars' or 'repeats', found '\(unit.text)'", at: unit.column)
        }
        let most = perRepeat ? MetroPattern.maximumRepeats : MetroPattern.maximumBars
        guard count.value <= most else {
            throw error(
                "a trainer steps every 1 to \(most) \(perRepeat ? "repeats" : "bars"), not \(count.value)",
                at: count.column)
        }
        let to = try take("'to' and the tempo to stop at")
        guard to.text == "to" else { throw error("expected 'to' and the tempo to stop at", at: to.column) }
        let limitWord = try take("the tempo to stop at")
        let limit: Double
        do { limit = try SectionSettings.trainerLimit(parsing: limitWord.text) } catch {
            throw self.error(error.reason, at: limitWord.column)
        }
        return WrittenTrainer(step: step, every: count.value, perRepeat: perRepeat, limit: limit, factor: nil)
    }
}
