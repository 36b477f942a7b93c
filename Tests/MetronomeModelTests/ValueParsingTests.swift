import MetronomeModel
import MetronomeTestSupport
import Testing

@Suite("Value parsing")
struct ValueParsingTests {
    @Test(
        "Tempos outside 1…1000 or not numbers are refused",
        arguments: ["0", "-5", "nan", "inf", "100000", "abc", "", "1000.5"])
    func badTempos(text: String) {
        #expect(
            throws: InvalidValue(
                value: text, reason: "tempo must be a number from 1 to 1000 (quarter notes per minute)")
        ) {
            try BPM(parsing: text)
        }
    }

    @Test("Meters: n from 1 to 64, d a power of two up to 32")
    func meters() throws {
        #expect(try Meter(parsing: "7/8") == .of(7, 8))
        #expect(throws: InvalidValue(value: "4/3", reason: "the beat unit must be 1, 2, 4, 8, 16 or 32")) {
            try Meter(parsing: "4/3")
        }
        #expect(throws: InvalidValue(value: "0/4", reason: "the number of beats must be from 1 to 64")) {
            try Meter(parsing: "0/4")
        }
        #expect(throws: InvalidValue(value: "65/4", reason: "the number of beats must be from 1 to 64")) {
            try Meter(parsing: "65/4")
        }
        #expect(throws: InvalidValue(value: "four", reason: "a meter is written n/d, for example 4/4 or 7/8")) {
            try Meter(parsing: "four")
        }
    }

    @Test("Accent patterns: klick's letters plus o, one per beat")
    func accents() throws {
        #expect(try AccentPattern(parsing: "X.xo", for: .fourFour).levels == [.accent, .silent, .normal, .soft])
        #expect(throws: InvalidValue(value: "X.x", reason: "the pattern has 3 beats but 4/4 needs 4")) {
            try AccentPattern(parsing: "X.x", for: .fourFour)
        }
        #expect(
            throws: InvalidValue(
                value: "Xyx.", reason: "letter 2 'y' is not one of X (accent), x (normal), o (soft), . (silent)")
        ) {
            try AccentPattern(parsing: "Xyx.", for: .fourFour)
        }
        #expect(AccentPattern.standard(for: .of(3, 4)).description == "Xxx")
    }

    @Test("Sections refuse bad bar counts, endless ramps and subdivisions beyond 16")
    func sections() {
        #expect(throws: InvalidValue(value: "0", reason: "the number of bars must be at least 1")) {
            try TempoSection(bars: 0, tempo: .of(120))
        }
        #expect(throws: InvalidValue(value: "17", reason: "subdivision must be from 1 to 16 clicks per beat")) {
            try TempoSection(bars: 1, tempo: .of(120), subdivision: 17)
        }
        #expect(throws: InvalidValue(value: "100-140", reason: "a tempo ramp needs a number of bars")) {
            try TempoSection(bars: nil, tempo: .of(100), endTempo: .of(140))
        }
    }
}
