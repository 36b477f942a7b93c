import MetronomeModel
import MetronomePatterns
import Testing

@Suite("One section from values, and the language's numbers at their limits")
struct SectionSettingsTests {
    @Test("SectionSettings gives the very sections a one-section .metro file gives, trainer steps included")
    func sameSectionsAsTheLanguage() throws {
        let meter = try Meter(parsing: "5/8")
        let settings = SectionSettings(
            tempo: try BPM(96.5), bars: 9, meter: meter,
            groups: try SectionSettings.grouping(parsing: "3+2", for: meter),
            accents: try AccentPattern(parsing: "X.xXo", for: meter), subdivision: 2,
            swing: try Swing(note: 8, amount: SectionSettings.swingAmount(parsing: "40%")),
            gap: try GapPractice(play: 2, mute: 1),
            trainer: try SectionSettings.Trainer(
                step: SectionSettings.trainerStep(parsing: "-3"), everyBars: 1,
                limit: SectionSettings.trainerLimit(parsing: "80")))
        let text =
            "tempo 96.5\nmeter 5/8 3+2\naccent X.xXo\nsubdivide 2\nswing 8 40%\ngap play 2 mute 1\n"
            + "9 bars trainer -3 every 1 bars to 80\n"
        let file = try MetroPattern.parse(text, file: "t.metro").score()
        let built = try settings.score()
        #expect(built.sections.count == 7)
        #expect(built.sections == file.sections)
        #expect(built.sections.map(\.tempo.quarterNotesPerMinute) == [96.5, 93.5, 90.5, 87.5, 84.5, 81.5, 80])
    }

    @Test("A trainer is checked against its section as in the language")
    func trainerChecks() throws {
        let up = try SectionSettings.Trainer(step: 4, everyBars: 2, limit: 100)
        #expect(
            throws: InvalidValue(value: "100", reason: "the trainer never moves: it starts at 120 and its limit is 100")
        ) {
            try up.check(startingAt: BPM(120), bars: 8)
        }
        let tiny = try SectionSettings.Trainer(step: 0.000001, everyBars: 1, limit: 1000)
        try tiny.check(startingAt: BPM(120), bars: 200_000)
        #expect(throws: InvalidValue.self) { try tiny.check(startingAt: BPM(120), bars: nil) }
        #expect(throws: InvalidValue.self) { try SectionSettings.Trainer(step: 0, everyBars: 1, limit: 100) }
        #expect(throws: InvalidValue.self) { try SectionSettings.Trainer(step: .infinity, everyBars: 1, limit: 100) }
        #expect(throws: InvalidValue.self) { try SectionSettings.Trainer(step: 1, everyBars: 0, limit: 100) }
        #expect(throws: InvalidValue.self) { try SectionSettings.Trainer(step: 1, everyBars: 1, limit: 1001) }
    }

    @Test("Huge numbers in a file are refused or counted without overflow (they used to trap)")
    func hugeNumbers() throws {
        #expect(
            patternError("tempo 80\n100 bars trainer +4 every 9223372036854775807 bars to 120\n")
                == "t.metro:2:27: error: a trainer steps every 1 to 1000000 bars, not 9223372036854775807\n"
                + "100 bars trainer +4 every 9223372036854775807 bars to 120\n" + String(repeating: " ", count: 26)
                + "^")
        let tiny = try MetroPattern.parse(
            "tempo 1\n100 bars trainer +0.000000000000000000001 every 1 bars to 1000\n", file: "t"
        ).score()
        #expect(tiny.sections.count == 100)
        #expect(
            patternError("meter 7/8 9223372036854775807+1\n1 bars\n")
                == "t.metro:1:11: error: the grouping adds up to far more than the 7 beats of 7/8\n"
                + "meter 7/8 9223372036854775807+1\n          ^")
        #expect(
            patternError("forever trainer +0.000001 every 1 bars to 1000\n")
                == "t.metro:1:1: error: the file expands to more than 200000 sections; use fewer repeats\n"
                + "forever trainer +0.000001 every 1 bars to 1000\n^")
    }
}
