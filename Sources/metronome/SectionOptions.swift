import ArgumentParser
import MetronomeKit

/// What a single `.metro` section says besides tempo, meter and accents, as options of the click command: swing,
/// gap practice and a tempo trainer. The values follow the pattern language's rules (the library's parsers); only
/// the way they are written suits a command line.
///
/// The root command parses these options wherever they stand, even after a subcommand's name, so every subcommand
/// that could be given them declares this group too (hidden) and says what it does with them: `play` and `chord`
/// refuse them, `arp` swings its steps with `--swing` and refuses the others.
struct SectionOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: """
            Swing of the eighths, 0 to 75 percent (50 = triplet feel, 75 = dotted); 16=P swings the sixteenths, 8=P \
            the eighths. The language's 'swing 8 50%'.
            """)
    var swing: String?

    @Option(
        parsing: .unconditional,
        help: "Gap practice PLAY:MUTE: bars with the click, then bars of silence, over and over (3:1).")
    var gap: String?

    @Option(
        parsing: .unconditional,
        help: """
            Tempo trainer STEP/BARS:LIMIT: add STEP BPM every BARS bars until LIMIT, then hold (+4/2:160; -5/4:60 \
            slows down). The language's 'trainer +4 every 2 bars to 160'.
            """)
    var trainer: String?

    /// The options given: their names and what they set, for refusals.
    var given: [(name: String, what: String)] {
        [
            (swing, "--swing", "the swing"), (gap, "--gap", "the gap practice"),
            (trainer, "--trainer", "the tempo trainers"),
        ].compactMap { $0.0 == nil ? nil : ($0.1, $0.2) }
    }

    /// Refuses the options in a command that has no section of its own.
    /// - Parameter reason: why they do not apply, after the option's name.
    func refuse(_ reason: String) throws(CommandLineError) {
        if let (name, _) = given.first { throw CommandLineError(.usage, "\(name) \(reason)") }
    }

    /// `--swing [8=|16=]PERCENT[%]`: the note value given, else `defaultNote`.
    func checkedSwing(defaultNote: Int = 8) throws(CommandLineError) -> Swing? {
        guard let swing else { return nil }
        var note = String(defaultNote)
        var amount = swing
        if let equals = swing.firstIndex(of: "=") {
            note = String(swing[..<equals])
            amount = String(swing[swing.index(after: equals)...])
        }
        do {
            // The note first, as the language reads it; Swing's own check names the notes allowed.
            let value = note.allSatisfy(\.isASCIIDigit) ? Int(note) ?? 0 : 0
            let fraction = Swing.notes.contains(value) ? try SectionSettings.swingAmount(parsing: amount) : 0
            return try Swing(note: value, amount: fraction)
        } catch {
            throw .usage(option: "--swing", "\(swing): \(error.reason)")
        }
    }

    /// `--gap PLAY:MUTE`.
    func checkedGap() throws(CommandLineError) -> GapPractice? {
        guard let gap else { return nil }
        let parts = gap.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else {
            throw .usage(
                option: "--gap", "\(gap): write bars played and bars muted as PLAY:MUTE, whole numbers (3:1)")
        }
        do {
            // All digits but too long for Int: out of range like any other large count.
            return try GapPractice(play: Int(parts[0]) ?? .max, mute: Int(parts[1]) ?? .max)
        } catch {
            throw .usage(option: "--gap", "\(gap): \(error.reason)")
        }
    }

    /// `--trainer STEP/BARS:LIMIT`, checked against the tempo it starts from and the bars it plays.
    func checkedTrainer(tempo: BPM, bars: Int?) throws(CommandLineError) -> SectionSettings.Trainer? {
        guard let trainer else { return nil }
        let halves = trainer.split(separator: ":", omittingEmptySubsequences: false)
        let front = halves[0].split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, front.count == 2 else {
            throw .usage(
                option: "--trainer",
                "\(trainer): write the trainer as STEP/BARS:LIMIT, as in +4/2:160 (4 BPM faster every 2 bars, up to "
                    + "160)")
        }
        do {
            let step = try SectionSettings.trainerStep(parsing: String(front[0]))
            let every = front[1].allSatisfy(\.isASCIIDigit) ? Int(front[1]) ?? 0 : 0
            let checked = try SectionSettings.Trainer(
                step: step, everyBars: every, limit: try SectionSettings.trainerLimit(parsing: String(halves[1])))
            try checked.check(startingAt: tempo, bars: bars)
            return checked
        } catch {
            throw .usage(option: "--trainer", "\(trainer): \(error.reason)")
        }
    }
}

extension Character {
    /// 0 to 9 (not the other scripts' digits `isNumber` accepts, which `Int(_:)` refuses).
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
