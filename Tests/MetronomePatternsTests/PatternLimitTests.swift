import MetronomeModel
import MetronomeTestSupport
import Testing

@testable import MetronomePatterns

@Suite("Pattern limits: numbers from text never trap; the section guard holds for any nesting")
struct PatternLimitTests {
    @Test("Messages print any tempo value, however large, without converting it to Int")
    func numbersInMessages() {
        #expect(ClauseParser.number(92.5) == "92.5")
        #expect(ClauseParser.number(120) == "120")
        #expect(ClauseParser.number(9_223_372_036_854_775_808) == "9.223372036854776e+18")
        #expect(ClauseParser.number(1e300) == "1e+300")
        #expect(ClauseParser.number(-9_223_372_036_854_775_808) == "-9223372036854775808")
    }

    @Test("Counts saturate at Int.max instead of wrapping below the ceiling")
    func saturation() {
        #expect(Int.max.saturatingMultiplied(by: 2) == .max)
        #expect((1 << 62).saturatingMultiplied(by: 4) == .max)
        #expect(3.saturatingMultiplied(by: 4) == 12)
        #expect(Int.max.saturatingAdding(1) == .max)
        #expect(2.saturatingAdding(3) == 5)
    }

    @Test("Nested repeats whose product wraps Int are refused before anything is expanded")
    func nestedRepeats() throws {
        for (depth, count) in [(127, 2), (10, 8192), (64, 2), (5, 10_000)] {
            let text =
                String(repeating: "repeat \(count)\n", count: depth) + "1 bar\n"
                + String(repeating: "end\n", count: depth)
            #expect(throws: PatternError.self) { try MetroPattern.parse(text, file: "n") }
            do {
                _ = try MetroPattern.parse(text, file: "n")
            } catch {
                #expect(error.line == depth + 1)
                #expect(error.message == "the file expands to more than 200000 sections; use fewer repeats")
            }
        }
        // Just under the ceiling still parses: 2 × 10000 × 10 = 200000 sections.
        let fits = "repeat 2\nrepeat 10000\n1 bar x10\nend\nend\n"
        #expect(try MetroPattern.parse(fits, file: "f").score().sections.count == 200_000)
        // A closed group counts with the same saturation when it is played again.
        let played = "a: repeat 10000\nrepeat 10000\n1 bar\nend\nend\n"
        #expect(throws: PatternError.self) { try MetroPattern.parse(played, file: "p") }
    }

    @Test("A trainer steps every 1 to 1000000 bars or 1 to 10000 repeats")
    func trainerEvery() throws {
        _ = try MetroPattern.parse("4 bars trainer +1 every 1000000 bars to 200\n", file: "t")
        for (text, message) in [
            (
                "4 bars trainer +1 every 1000001 bars to 200\n",
                "a trainer steps every 1 to 1000000 bars, not 1000001"
            ),
            (
                "4 bars x2 trainer +1 every 9223372036854775807 repeats to 200\n",
                "a trainer steps every 1 to 10000 repeats, not 9223372036854775807"
            ),
        ] {
            do {
                _ = try MetroPattern.parse(text, file: "t")
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.message == message)
            }
        }
        #expect(throws: InvalidValue.self) { try SectionSettings.Trainer(step: 1, everyBars: .max, limit: 200) }
    }

    @Test("A map longer than 10^11 quarter notes is an error at the section that passes it; at the limit it is fine")
    func mapLength() throws {
        // 64/1 bars are 256 quarter notes: 390625000 of them are exactly 10^11.
        let bar = try TempoSection(bars: 1_000_000, meter: .of(64, 1), tempo: .of(120))
        let exact = try TempoSection(bars: 625_000, meter: .of(64, 1), tempo: .of(120))
        let fits = Array(repeating: bar, count: 390) + [exact]
        #expect(TempoMap.firstSectionPastMaximumLength(fits) == nil)
        _ = try TempoMap(sections: fits)
        let over = fits + [try TempoSection(bars: 1, meter: .of(1, 32), tempo: .of(120))]
        #expect(TempoMap.firstSectionPastMaximumLength(over) == 391)
        #expect(
            throws: InvalidValue(
                value: "section 392", reason: "the map grows longer than 100000000000 quarter notes here")
        ) {
            try TempoMap(sections: over)
        }
        let huge = try TempoSection(label: "huge", bars: .max, tempo: .of(120))
        #expect(TempoMap.firstSectionPastMaximumLength([huge]) == 0)
        #expect(throws: InvalidValue.self) { try TempoMap(sections: [huge]) }
        #expect(throws: InvalidValue.self) {
            try TempoSection(bars: .max, meter: .of(4, 4), beatTempos: [.of(120)])
        }
    }

    @Test("klick bar counts have the .metro ceiling: 1000000 parses, more is an error at the count")
    func klickBars() throws {
        _ = try KlickMap.parse("1000000 4/4 120\n", file: "k")
        for count in ["1000001", "9223372036854775807", "99999999999999999999", "0"] {
            do {
                _ = try KlickMap.parse("\(count) 4/4 120,120\n", file: "k")
                Issue.record("\(count) bars parsed")
            } catch {
                #expect(error.column == 1)
                #expect(error.message == "a number of bars is a whole number from 1 to 1000000")
            }
        }
    }

    @Test("--start-at into an endless section: up to 1000000 bars in, then an error naming the range")
    func startAtEndless() throws {
        let score = try MetroPattern.parse("4 bars\nforever\n", file: "e").score()
        let map = try score.map(sampleRate: .standard, startAt: "1000004")
        #expect(map.firstBar == 1_000_003)
        #expect(
            throws: InvalidValue(
                value: "9223372036854775807", reason: "the pattern plays forever from bar 5; start at 1 to 1000004")
        ) { try score.map(sampleRate: .standard, startAt: "9223372036854775807") }
    }
}
