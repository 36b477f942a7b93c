import MetronomeModel
import MetronomePatterns

/// A section's swing, gap practice and tempo trainer in their short written forms (`16=60`, `3:1`, `+4/2:160`),
/// each the one-section counterpart of a `.metro` clause.
extension SettingText {
    /// `[8=|16=]PERCENT[%]`: the `.metro` language's `swing 16 60%`; the note value given, else `defaultNote`.
    /// - Throws: `InvalidValue` naming the notes or the amounts allowed.
    public static func swing(_ text: String, defaultNote: Int = 8) throws(InvalidValue) -> Swing {
        var note = String(defaultNote)
        var amount = text
        if let equals = text.firstIndex(of: "=") {
            note = String(text[..<equals])
            amount = String(text[text.index(after: equals)...])
        }
        do {
            // The note first, as the language reads it; Swing's own check names the notes allowed.
            let value = note.allSatisfy(\.isASCIIDigit) ? Int(note) ?? 0 : 0
            let fraction = Swing.notes.contains(value) ? try SectionSettings.swingAmount(parsing: amount) : 0
            return try Swing(note: value, amount: fraction)
        } catch {
            throw InvalidValue(value: text, reason: error.reason)
        }
    }

    /// `PLAY:MUTE`: bars played, then bars muted (the language's `gap play 3 mute 1`).
    /// - Throws: `InvalidValue` for another shape or counts out of range.
    public static func gap(_ text: String) throws(InvalidValue) -> GapPractice {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else {
            throw InvalidValue(
                value: text, reason: "write bars played and bars muted as PLAY:MUTE, whole numbers (3:1)")
        }
        do {
            // All digits but too long for Int: out of range like any other large count.
            return try GapPractice(play: Int(parts[0]) ?? .max, mute: Int(parts[1]) ?? .max)
        } catch {
            throw InvalidValue(value: text, reason: error.reason)
        }
    }

    /// `STEP/BARS:LIMIT` (the language's `trainer +4 every 2 bars to 160`), checked against the tempo it starts from
    /// and the bars it plays.
    /// - Throws: `InvalidValue` for another shape, a step, a bar count or a limit out of range, or too many steps.
    public static func trainer(_ text: String, tempo: BPM, bars: Int?) throws(InvalidValue) -> SectionSettings.Trainer {
        let halves = text.split(separator: ":", omittingEmptySubsequences: false)
        let front = halves[0].split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, front.count == 2 else {
            throw InvalidValue(
                value: text,
                reason: "write the trainer as STEP/BARS:LIMIT, as in +4/2:160 (4 BPM faster every 2 bars, up to 160)")
        }
        do {
            let step = try SectionSettings.trainerStep(parsing: String(front[0]))
            let every = front[1].allSatisfy(\.isASCIIDigit) ? Int(front[1]) ?? 0 : 0
            let trainer = try SectionSettings.Trainer(
                step: step, everyBars: every, limit: try SectionSettings.trainerLimit(parsing: String(halves[1])))
            try trainer.check(startingAt: tempo, bars: bars)
            return trainer
        } catch {
            throw InvalidValue(value: text, reason: error.reason)
        }
    }
}

extension Character {
    /// 0 to 9 (not the other scripts' digits `isNumber` accepts, which `Int(_:)` refuses).
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
