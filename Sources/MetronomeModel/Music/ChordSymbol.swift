/// A chord written as a symbol (`Cmaj7`, `F#m7`, `Am/G`), as explicit notes (`C4+E4+G4`, `60+64+67`), or `N.C.`
/// for a chord's worth of silence; turned into MIDI notes by a voicing.
///
/// Symbols: a root `A`–`G` with `#` or `b`, a quality from `ChordSymbol.qualities` (empty for major) or one of its
/// usual spellings (`ChordSymbol.spellings`: `Cmaj`, `CM7`, `C-7`, `Cø`, `C°`, `C+`, …), and an optional slash bass
/// (`/E`). Explicit notes are note names with an octave (`C4` is MIDI 60, `A4` 69) or MIDI numbers 0–127, joined by
/// `+`; a lone name that is also a chord (`C5`, the power chord; `C6`, `C7`, `C9`, `C11`, `C13`) is the chord, so a
/// single note in those octaves is written as its MIDI number (`E5` is the power chord E–B, `76` the note).
public struct ChordSymbol: Sendable, Hashable, CustomStringConvertible {
    /// Semitones above the root of every quality the parser knows, by its suffix.
    public static let qualities: [(suffix: String, intervals: [Int])] = [
        ("", [0, 4, 7]), ("m", [0, 3, 7]), ("7", [0, 4, 7, 10]), ("maj7", [0, 4, 7, 11]), ("m7", [0, 3, 7, 10]),
        ("mMaj7", [0, 3, 7, 11]), ("m7b5", [0, 3, 6, 10]), ("dim", [0, 3, 6]), ("dim7", [0, 3, 6, 9]),
        ("aug", [0, 4, 8]), ("sus2", [0, 2, 7]), ("sus4", [0, 5, 7]), ("6", [0, 4, 7, 9]), ("m6", [0, 3, 7, 9]),
        ("9", [0, 4, 7, 10, 14]), ("m9", [0, 3, 7, 10, 14]), ("maj9", [0, 4, 7, 11, 14]), ("add9", [0, 4, 7, 14]),
        ("11", [0, 4, 7, 10, 14, 17]), ("13", [0, 4, 7, 10, 14, 21]), ("7b9", [0, 4, 7, 10, 13]),
        ("7#9", [0, 4, 7, 10, 15]), ("7#11", [0, 4, 7, 10, 18]), ("5", [0, 7]), ("7sus4", [0, 5, 7, 10]),
        ("9sus4", [0, 5, 7, 10, 14]), ("aug7", [0, 4, 8, 10]), ("6/9", [0, 4, 7, 9, 14]), ("m6/9", [0, 3, 7, 9, 14]),
        ("add11", [0, 4, 7, 17]), ("m11", [0, 3, 7, 10, 14, 17]), ("maj7#11", [0, 4, 7, 11, 18]),
        ("13#11", [0, 4, 7, 10, 14, 18, 21]), ("maj13", [0, 4, 7, 11, 14, 21]), ("m13", [0, 3, 7, 10, 14, 21]),
    ]

    /// Other spellings lead sheets use, and the quality each means (`Cmaj` is `C`, `C-7` is `Cm7`, `Cø` is `Cm7b5`).
    public static let spellings: [(spelling: String, suffix: String)] = [
        ("maj", ""), ("M", ""), ("min", "m"), ("mi", "m"), ("-", "m"), ("M7", "maj7"), ("Maj7", "maj7"),
        ("ma7", "maj7"), ("Δ", "maj7"), ("Δ7", "maj7"), ("min7", "m7"), ("mi7", "m7"), ("-7", "m7"), ("ø", "m7b5"),
        ("ø7", "m7b5"), ("-7b5", "m7b5"), ("min7b5", "m7b5"), ("°", "dim"), ("o", "dim"), ("°7", "dim7"),
        ("o7", "dim7"), ("+", "aug"), ("+7", "aug7"), ("7+", "aug7"), ("mM7", "mMaj7"), ("m(maj7)", "mMaj7"),
        ("-maj7", "mMaj7"), ("minMaj7", "mMaj7"), ("sus", "sus4"), ("7sus", "7sus4"), ("M9", "maj9"),
        ("Maj9", "maj9"), ("min6", "m6"), ("-6", "m6"), ("min9", "m9"), ("-9", "m9"), ("min11", "m11"),
        ("-11", "m11"), ("69", "6/9"), ("m69", "m6/9"), ("M13", "maj13"), ("maj7(#11)", "maj7#11"),
        ("13(#11)", "13#11"), ("7(b9)", "7b9"), ("7(#9)", "7#9"), ("7(#11)", "7#11"), ("add2", "add9"),
    ]

    /// The intervals of a quality written with its canonical suffix or another spelling, or nil.
    static func intervals(ofQuality text: Substring) -> [Int]? {
        let suffix = spellings.first { $0.spelling == text }?.suffix ?? String(text)
        return qualities.first { $0.suffix == suffix }?.intervals
    }

    /// What the chord is.
    public enum Content: Sendable, Hashable {
        /// A root pitch class (0 = C), intervals above it, and an optional bass pitch class.
        case symbol(root: Int, intervals: [Int], bass: Int?)
        /// MIDI notes as written.
        case notes([Int])
        /// No chord: its time passes in silence.
        case noChord
    }

    /// The chord as written.
    public let text: String
    /// What it means.
    public let content: Content

    /// Parses one chord.
    /// - Throws: `InvalidValue` naming the text and what is allowed.
    public init(parsing text: String) throws(InvalidValue) {
        self.text = text
        if text == "N.C." || text == "NC" {
            content = .noChord
            return
        }
        // Explicit notes need a '+' or are MIDI numbers; a lone name like C7 or C5 is the chord (C4 alone, which no
        // quality matches, is the single note), and so is a symbol whose quality has a '+' (C+, C+7).
        var afterRoot = Substring(text)
        let isQuality =
            ChordSymbol.pitchClass(consuming: &afterRoot) != nil
            && (ChordSymbol.intervals(ofQuality: afterRoot) != nil
                || afterRoot.lastIndex(of: "/").map { ChordSymbol.intervals(ofQuality: afterRoot[..<$0]) != nil }
                    ?? false)
        if (text.contains("+") && !isQuality) || text.first?.isNumber == true
            || (!isQuality && ChordSymbol.noteNumber(text) != nil)
        {
            var notes: [Int] = []
            for part in text.split(separator: "+", omittingEmptySubsequences: false) {
                guard let note = ChordSymbol.noteNumber(String(part)) else {
                    throw InvalidValue(
                        value: text,
                        reason:
                            "'\(part)' is not a note; write a name with its octave (C4, F#3, Bb2) or a MIDI number 0-127"
                    )
                }
                notes.append(note)
            }
            content = .notes(notes)
            return
        }
        var rest = Substring(text)
        guard let root = ChordSymbol.pitchClass(consuming: &rest) else {
            // German and Scandinavian charts write B as H.
            let hint = text.first == "H" ? " (H is written B here, Bb for the German B)" : ""
            throw InvalidValue(
                value: text,
                reason: "a chord starts with its root A-G (with # or b)\(hint), or is N.C. or explicit notes")
        }
        var bass: Int?
        // A slash that belongs to the quality (C6/9) is not a bass.
        if ChordSymbol.intervals(ofQuality: rest) == nil, let slash = rest.lastIndex(of: "/") {
            var bassText = rest[rest.index(after: slash)...]
            guard let pitch = ChordSymbol.pitchClass(consuming: &bassText), bassText.isEmpty else {
                throw InvalidValue(value: text, reason: "the bass after '/' is a note name A-G with # or b")
            }
            bass = pitch
            rest = rest[..<slash]
        }
        guard let intervals = ChordSymbol.intervals(ofQuality: rest) else {
            let known = ChordSymbol.qualities.map { "C" + $0.suffix }.joined(separator: " ")
            throw InvalidValue(
                value: text,
                reason: "unknown chord quality '\(rest)'; known: \(known), their usual spellings, and slash chords")
        }
        content = .symbol(root: root, intervals: intervals, bass: bass)
    }

    /// Reads a note letter and its accidentals from the front of `text`.
    static func pitchClass(consuming text: inout Substring) -> Int? {
        let letters: [Character: Int] = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11]
        guard let first = text.first, var pitch = letters[first] else { return nil }
        text = text.dropFirst()
        while let accidental = text.first, accidental == "#" || accidental == "b" {
            pitch += accidental == "#" ? 1 : -1
            text = text.dropFirst()
        }
        return (pitch + 12) % 12
    }

    /// MIDI number of `C4`, `F#3`, `Bb-1` or `60`, or nil.
    public static func noteNumber(_ text: String) -> Int? {
        if text.allSatisfy(\.isNumber), !text.isEmpty {
            guard let value = Int(text), (0...127).contains(value) else { return nil }
            return value
        }
        var rest = Substring(text)
        guard let first = rest.first else { return nil }
        let letters: [Character: Int] = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11]
        guard var pitch = letters[first] else { return nil }
        rest = rest.dropFirst()
        while let accidental = rest.first, accidental == "#" || accidental == "b" {
            pitch += accidental == "#" ? 1 : -1
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty, let octave = Int(rest), (-1...9).contains(octave) else { return nil }
        let note = (octave + 1) * 12 + pitch
        return (0...127).contains(note) ? note : nil
    }

    /// The MIDI notes of the chord, lowest first. A symbol's root sits in `octave` (C4 = 60), the other notes above
    /// it; `inversion` moves the lowest notes up an octave that many times; a slash bass goes below everything, in
    /// the octave under the root. Explicit notes are returned as written (inversions apply to them too); N.C. is empty.
    /// - Returns: notes clamped into 0...127 by octaves.
    public func notes(octave: Int = 4, inversion: Int = 0) -> [Int] {
        var notes: [Int]
        var bassNote: Int?
        switch content {
        case .noChord: return []
        case .notes(let written): notes = written
        case .symbol(let root, let intervals, let bass):
            let rootNote = (octave + 1) * 12 + root
            notes = intervals.map { rootNote + $0 }
            if let bass { bassNote = rootNote - 12 + ((bass - root + 12) % 12) }
        }
        for _ in 0..<max(0, inversion) {
            let sorted = notes.sorted()
            notes = Array(sorted.dropFirst()) + [sorted[0] + 12]
        }
        if let bassNote { notes = [bassNote] + notes }
        return notes.map { note in
            var value = note
            while value > 127 { value -= 12 }
            while value < 0 { value += 12 }
            return value
        }
    }

    public var description: String { text }

    /// Parses a progression: chords separated by spaces (or `|` bar lines, which are ignored).
    /// - Throws: `InvalidValue` whose value is the chord and whose reason names its position (1-based) when there
    ///   are several.
    public static func progression(_ text: String) throws(InvalidValue) -> [ChordSymbol] {
        var chords: [ChordSymbol] = []
        let words = text.split { $0 == " " || $0 == "\t" || $0 == "|" || $0 == "," }
        for (index, word) in words.enumerated() {
            do {
                chords.append(try ChordSymbol(parsing: String(word)))
            } catch {
                guard words.count > 1 else { throw error }
                throw InvalidValue(
                    value: String(word), reason: "chord \(index + 1) of the progression: \(error.reason)")
            }
        }
        guard !chords.isEmpty else { throw InvalidValue(value: text, reason: "the progression has no chords") }
        return chords
    }
}
