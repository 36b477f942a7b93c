import MetronomeModel

/// A zone as a bank file describes it, before its sample is loaded.
public struct ZoneDescription: Sendable, Hashable {
    /// The sample file, as written (relative to the bank file's folder).
    public var file: String
    public var lowNote: Int
    public var highNote: Int
    public var rootNote: Int
    public var fineTune: Double = 0
    public var gain: Float = 1
    public var loop: Range<Int>?
    public var release: Double = 0.2
    /// Line of the bank file (for messages about the sample).
    public var line: Int = 0
}

/// A bank file of our own: a small text file beside its samples, one zone per line.
///
/// ```
/// # Nylon guitar, three zones
/// name nylon
/// summary Nylon-string guitar, close microphone
/// sample guitar-e2.wav root E2 notes 0-47
/// sample guitar-a3.flac root A3 notes 48-62 tune -4 gain 0.9
/// sample guitar-e4.wav root E4 notes 63-127 loop 2400-38000 release 0.4
/// ```
///
/// `name` and `summary` are optional (the name defaults to the file's). Each `sample` line names a file (no spaces),
/// `root` (a note name with octave, C4 = 60, or a MIDI number) and `notes LOW-HIGH` (names or numbers); `tune`
/// (cents), `gain` (linear), `loop START-END` (frames of the sample, end exclusive) and `release` (seconds,
/// default 0.2) are optional. `#` starts a comment.
public enum BankFile {
    /// Parses a bank file's text.
    /// - Throws: `PatternError` at the first malformed line (exit 65 on the command line).
    public static func parse(_ text: String, file: String) throws(PatternError) -> (
        name: String?, summary: String?, zones: [ZoneDescription]
    ) {
        var name: String?
        var summary: String?
        var zones: [ZoneDescription] = []
        var lineNumber = 0
        for source in sourceLines(of: text) {
            lineNumber += 1
            let tokens = MetroParser.tokens(of: source)
            guard let first = tokens.first else { continue }
            func error(_ message: String, _ column: Int) -> PatternError {
                PatternError(file: file, line: lineNumber, column: column, message: message, sourceLine: source)
            }
            switch first.text {
            case "name":
                guard tokens.count == 2 else {
                    throw error("'name' takes one word", tokens.count > 2 ? tokens[2].column : source.count + 1)
                }
                name = tokens[1].text
            case "summary":
                guard tokens.count > 1 else { throw error("'summary' needs a description", source.count + 1) }
                summary = tokens.dropFirst().map(\.text).joined(separator: " ")
            case "sample":
                guard tokens.count > 1 else { throw error("'sample' needs a file name", source.count + 1) }
                var zone = ZoneDescription(
                    file: tokens[1].text, lowNote: -1, highNote: -1, rootNote: -1, line: lineNumber)
                var index = 2
                func value(_ what: String) throws(PatternError) -> (text: String, column: Int) {
                    guard index + 1 < tokens.count else {
                        throw error("'\(tokens[index].text)' needs \(what)", source.count + 1)
                    }
                    return tokens[index + 1]
                }
                func note(_ word: (text: String, column: Int)) throws(PatternError) -> Int {
                    guard let number = ChordSymbol.noteNumber(word.text) else {
                        throw error(
                            "'\(word.text)' is not a note; write a name with its octave (C4) or a MIDI number 0-127",
                            word.column)
                    }
                    return number
                }
                func range(_ word: (text: String, column: Int)) throws(PatternError) -> (Int, Int) {
                    let parts = word.text.split(separator: "-", maxSplits: 1)
                    guard parts.count == 2 else {
                        throw error("expected a range LOW-HIGH, found '\(word.text)'", word.column)
                    }
                    return (
                        try note((String(parts[0]), word.column)),
                        try note((String(parts[1]), word.column + parts[0].count + 1))
                    )
                }
                while index < tokens.count {
                    let keyword = tokens[index]
                    switch keyword.text {
                    case "root": zone.rootNote = try note(try value("a note"))
                    case "notes":
                        let word = try value("a range LOW-HIGH")
                        (zone.lowNote, zone.highNote) = try range(word)
                        guard zone.lowNote <= zone.highNote else {
                            throw error("the lowest note comes first", word.column)
                        }
                    case "tune":
                        let word = try value("cents")
                        guard let cents = Double(word.text), cents.isFinite, abs(cents) <= 1200 else {
                            throw error("tune is a number of cents from -1200 to 1200", word.column)
                        }
                        zone.fineTune = cents
                    case "gain":
                        let word = try value("a linear gain")
                        guard let gain = Float(word.text), gain.isFinite, (0...4).contains(gain) else {
                            throw error("gain is a number from 0 to 4", word.column)
                        }
                        zone.gain = gain
                    case "loop":
                        let word = try value("frames START-END")
                        let parts = word.text.split(separator: "-", maxSplits: 1)
                        guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), start >= 0,
                            end > start
                        else {
                            throw error("a loop is START-END in frames of the sample, START below END", word.column)
                        }
                        zone.loop = start..<end
                    case "release":
                        let word = try value("seconds")
                        guard let seconds = Double(word.text), seconds.isFinite, (0...60).contains(seconds) else {
                            throw error("release is a number of seconds from 0 to 60", word.column)
                        }
                        zone.release = seconds
                    default:
                        throw error(
                            "unknown word '\(keyword.text)'; a sample takes root, notes, tune, gain, loop and release",
                            keyword.column)
                    }
                    index += 2
                }
                guard zone.rootNote >= 0 else { throw error("the sample needs 'root NOTE'", source.count + 1) }
                guard zone.lowNote >= 0 else { throw error("the sample needs 'notes LOW-HIGH'", source.count + 1) }
                zones.append(zone)
            default:
                throw error(
                    "unknown word '\(first.text)'; a bank file has name, summary and sample lines", first.column)
            }
        }
        guard !zones.isEmpty else {
            throw PatternError(
                file: file, line: max(1, lineNumber), column: 1, message: "the bank has no 'sample' lines",
                sourceLine: "")
        }
        return (name, summary, zones)
    }
}

/// SoundBankPlayer's plist bank, read as it is: an array whose first string is the sample rate, then one triple
/// per sample — its name, the last MIDI note it plays and its root note. The first sample starts at note 0, each
/// next one after the previous last note, and the last sample plays up to 127 whatever its last note says. The
/// samples lie beside the plist as `NAME.caf` (or `NAME.wav`, `.aiff`, `.flac`, `.ogg`; any name libsndfile reads).
public enum SoundBankPlayerPlist {
    /// Parses the plist's XML.
    /// - Throws: `InvalidValue` naming what is wrong.
    public static func parse(_ text: String) throws(InvalidValue) -> (sampleRate: Int, zones: [ZoneDescription]) {
        // The values in order: <string>…</string> and <integer>…</integer> elements.
        var values: [String] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "<") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            guard tag == "string" || tag == "integer" else { continue }
            guard let end = rest.firstRange(of: "</\(tag)>") else {
                throw InvalidValue(value: "<\(String(tag).oneLineExcerpt)>", reason: "the element is not closed")
            }
            values.append(String(rest[..<end.lowerBound]).trimmingWhitespace())
            rest = rest[end.upperBound...]
        }
        guard let first = values.first, let rate = Int(first), (1000...384_000).contains(rate) else {
            throw InvalidValue(
                value: (values.first ?? "").oneLineExcerpt,
                reason: "the first entry must be the sample rate in Hz, 1000 to 384000")
        }
        let entries = values.dropFirst()
        guard !entries.isEmpty, entries.count % 3 == 0 else {
            throw InvalidValue(
                value: String(entries.count), reason: "after the sample rate come name / last note / root note triples")
        }
        var zones: [ZoneDescription] = []
        var start = 0
        let triples = Array(entries)
        for index in stride(from: 0, to: triples.count, by: 3) {
            guard let last = Int(triples[index + 1]), let root = Int(triples[index + 2]), (0...127).contains(last),
                (0...127).contains(root)
            else {
                throw InvalidValue(
                    value: triples[index].oneLineExcerpt,
                    reason: "its last note and root note must be MIDI numbers 0-127")
            }
            guard !triples[index].contains(where: \.isNewline) else {
                throw InvalidValue(value: triples[index].oneLineExcerpt, reason: "a sample name is one line")
            }
            let end = index + 3 == triples.count ? 127 : last
            guard end >= start else {
                throw InvalidValue(
                    value: triples[index].oneLineExcerpt, reason: "its last note \(last) is below the previous sample's"
                )
            }
            zones.append(
                ZoneDescription(
                    file: triples[index], lowNote: start, highNote: end, rootNote: root, line: index / 3 + 1))
            start = end + 1
        }
        return (rate, zones)
    }
}

extension String {
    /// Without leading and trailing white space, line breaks included (`\r\n` is one Character).
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// The text as one short line for a message: line breaks and tabs as spaces, runs of white space as one, and
    /// at most 40 characters (then "…"), so raw XML never spreads a message over lines.
    fileprivate var oneLineExcerpt: String {
        var result = ""
        for character in self {
            let next: Character = character.isWhitespace ? " " : character
            if next == " ", result.last == " " { continue }
            result.append(next)
        }
        result = result.trimmingWhitespace()
        return result.count > 40 ? String(result.prefix(40)) + "…" : result
    }
}
