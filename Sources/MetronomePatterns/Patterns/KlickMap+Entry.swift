import MetronomeModel

extension KlickMap {
    /// Parses one entry's words, left to right, reporting the column of the first one that does not fit.
    struct EntryParser: LineParsing {
        var tokens: [(text: String, column: Int)]
        let file: String
        let line: Int
        let source: String
        private var index = 0

        init(tokens: [(text: String, column: Int)], file: String, line: Int, source: String) {
            self.file = file
            self.line = line
            self.source = source
            // "intro:4" is a label glued to the bar count, as klick allows.
            var split: [(text: String, column: Int)] = []
            if let first = tokens.first, let colon = first.text.firstIndex(of: ":") {
                let label = String(first.text[...colon])
                split.append((label, first.column))
                let rest = String(first.text[first.text.index(after: colon)...])
                if !rest.isEmpty { split.append((rest, first.column + label.count)) }
                split += tokens.dropFirst()
            } else {
                split = tokens
            }
            self.tokens = split
        }

        private var current: (text: String, column: Int)? { index < tokens.count ? tokens[index] : nil }

        mutating func parse() throws(PatternError) -> TempoSection {
            var label: String?
            if let word = current, word.text.hasSuffix(":") {
                let name = String(word.text.dropLast())
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw error("a label is letters, digits, '_' and '-', followed by ':'", at: word.column)
                }
                label = name
                index += 1
            }
            guard let barsWord = current else { throw error("expected a number of bars", at: endColumn) }
            guard !barsWord.text.isEmpty, barsWord.text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw error("expected a number of bars, found '\(barsWord.text)'", at: barsWord.column)
            }
            // The same ceiling as a .metro section line; digits past Int.max are simply out of range.
            guard let bars = Int(barsWord.text), (1...MetroPattern.maximumBars).contains(bars) else {
                throw error(
                    "a number of bars is a whole number from 1 to \(MetroPattern.maximumBars)", at: barsWord.column)
            }
            index += 1

            var meter = Meter.fourFour
            if let word = current, word.text.contains("/") {
                do { meter = try Meter(parsing: word.text) } catch { throw self.error(error.reason, at: word.column) }
                index += 1
            }

            guard let tempoWord = current else { throw error("expected a tempo", at: endColumn) }
            let tempo = try parseTempo(tempoWord, bars: bars, meter: meter)
            index += 1

            var accents: AccentPattern?
            if let word = current, word.text.allSatisfy({ "Xx.o".contains($0) }) {
                do {
                    accents = try AccentPattern(parsing: word.text, for: meter)
                } catch {
                    throw self.error(error.reason, at: word.column)
                }
                index += 1
            }

            var volume: Float = 1
            if let word = current {
                guard let value = Float(word.text), value.isFinite, (0...1).contains(value) else {
                    let what = accents == nil ? "an accent pattern (X x . o) or a volume" : "a volume"
                    throw error(
                        "expected \(what), found '\(word.text)'; a volume is a number from 0 to 1", at: word.column)
                }
                volume = value
                index += 1
            }
            if let word = current { throw error("unexpected '\(word.text)' after the entry", at: word.column) }

            do {
                switch tempo {
                case .constant(let value):
                    return try TempoSection(
                        label: label, bars: bars, meter: meter, tempo: value, accents: accents, volume: volume)
                case .ramp(let from, let to):
                    return try TempoSection(
                        label: label, bars: bars, meter: meter, tempo: from, endTempo: to, accents: accents,
                        volume: volume)
                case .perBeat(let values):
                    return try TempoSection(
                        label: label, bars: bars, meter: meter, beatTempos: values, accents: accents, volume: volume)
                }
            } catch {
                throw self.error(error.reason, at: tempoWord.column)
            }
        }

        enum Tempo {
            case constant(BPM)
            case ramp(BPM, BPM)
            case perBeat([BPM])
        }

        private func parseTempo(_ word: (text: String, column: Int), bars: Int, meter: Meter) throws(PatternError)
            -> Tempo
        {
            func value(_ text: Substring, column: Int) throws(PatternError) -> BPM {
                guard text.allSatisfy({ $0.isNumber || $0 == "." }), let number = Double(text) else {
                    throw error("expected a tempo, found '\(text)'", at: column)
                }
                do { return try BPM(number) } catch { throw self.error(error.reason, at: column) }
            }
            if word.text.contains(",") {
                var values: [BPM] = []
                var column = word.column
                for part in word.text.split(separator: ",", omittingEmptySubsequences: false) {
                    values.append(try value(part, column: column))
                    column += part.count + 1
                }
                guard values.count == bars * meter.beats else {
                    throw error(
                        "a tempo per beat needs \(bars * meter.beats) tempos (\(bars) bar\(bars == 1 ? "" : "s") of \(meter.beats) beats), found \(values.count)",
                        at: word.column)
                }
                return .perBeat(values)
            }
            let parts = word.text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count <= 2 else {
                throw error("expected a tempo or a ramp A-B, found '\(word.text)'", at: word.column)
            }
            let start = try value(parts[0], column: word.column)
            guard parts.count == 2 else { return .constant(start) }
            return .ramp(start, try value(parts[1], column: word.column + parts[0].count + 1))
        }
    }
}
