import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

@Suite("klick tempo maps")
struct KlickMapTests {
    @Test("Entries: labels (also glued), meters, ramps, tempo lists, patterns, volumes, comments")
    func parsesEntries() throws {
        let map = try KlickMap.parse(KlickSong.text, file: "song.klick")
        #expect(map.sections.count == 3)
        let intro = map.sections[0]
        #expect(intro.label == "intro" && intro.bars == 2 && intro.meter == .fourFour && intro.tempo == .of(120))
        let verse = map.sections[1]
        #expect(verse.label == "verse" && verse.bars == 4 && verse.meter == .of(7, 8))
        #expect(verse.tempo == .of(100) && verse.endTempo == .of(140) && verse.volume == 0.8)
        #expect(verse.accents.description == "X.xX.x.")
        let third = map.sections[2]
        #expect(third.label == nil && third.beatTempos?.count == 9 && third.accents.description == "Xxx")
        #expect(map.barCount == 9)
    }

    static let errors: [(String, Int, Int, String)] = [
        ("4 4/3 120", 1, 3, "the beat unit must be 1, 2, 4, 8, 16 or 32"),
        ("x 4/4 120", 1, 1, "expected a number of bars, found 'x'"),
        ("0 120", 1, 1, "a number of bars is a whole number from 1 to 1000000"),
        ("4 4/4", 1, 6, "expected a tempo"),
        ("4 4/4 fast", 1, 7, "expected a tempo, found 'fast'"),
        ("4 4/4 0", 1, 7, "tempo must be a number from 1 to 1000 (quarter notes per minute)"),
        ("4 4/4 120-abc", 1, 11, "expected a tempo, found 'abc'"),
        ("1 3/4 100,110", 1, 7, "a tempo per beat needs 3 tempos (1 bar of 3 beats), found 2"),
        ("2 3/4 120 Xx", 1, 11, "the pattern has 2 beats but 3/4 needs 3"),
        ("2 120 Xxxx 1.5", 1, 12, "expected a volume, found '1.5'; a volume is a number from 0 to 1"),
        (
            "2 120 loud", 1, 7,
            "expected an accent pattern (X x . o) or a volume, found 'loud'; a volume is a number from 0 to 1"
        ),
        ("2 120 Xxxx 0.5 extra", 1, 16, "unexpected 'extra' after the entry"),
        ("bad label: 2 120", 1, 1, "expected a number of bars, found 'bad'"),
        ("# only a comment\n\n", 2, 1, "the file holds no tempo-map entries"),
        ("4 120\n\t2 5/0 90", 2, 4, "the beat unit must be 1, 2, 4, 8, 16 or 32"),
    ]

    @Test("Malformed entries: exact message at the exact line and column", arguments: errors)
    func positionedErrors(text: String, line: Int, column: Int, message: String) {
        do {
            _ = try KlickMap.parse(text, file: "map.klick")
            Issue.record("parsed without error")
        } catch {
            #expect(error.line == line)
            #expect(error.column == column)
            #expect(error.message == message)
        }
    }

    @Test("The error shows the line and a caret under the column, tabs kept")
    func caret() {
        let error = PatternError(file: "m.klick", line: 2, column: 4, message: "bad", sourceLine: "\t2 5/0 90")
        #expect(error.description == "m.klick:2:4: error: bad\n\t2 5/0 90\n\t  ^")
    }

    @Test("Seeded mutations never crash: each parses or gives an error positioned inside the text")
    func mutationSweep() {
        var generator = SeededGenerator(seed: 42)
        let alphabet = Array("0123456789/-,.:# \tXxo\nabc")
        let base = Array(KlickSong.text)
        var errors = 0
        for _ in 0..<3000 {
            var text = base
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<text.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: text.remove(at: position)
                case 1: text.insert(alphabet.randomElement(using: &generator)!, at: position)
                default: text[position] = alphabet.randomElement(using: &generator)!
                }
            }
            let source = String(text)
            do {
                let map = try KlickMap.parse(source, file: "fuzz.klick")
                #expect(!map.sections.isEmpty)
            } catch {
                errors += 1
                let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(error.line >= 1 && error.line <= max(1, lines.count))
                #expect(error.column >= 1 && error.column <= error.sourceLine.count + 1)
            }
        }
        #expect(errors > 100)
    }
}
