import Foundation
import MetronomeModel
import MetronomePatterns
import Testing

@Suite("Pattern text: Windows line endings, a byte-order mark, and 'x R' as the grammar writes it")
struct PatternTextTests {
    static let mark = "\u{FEFF}"

    @Test("Lines split at LF, CRLF and a lone CR; a leading byte-order mark is dropped; no empty last line")
    func lines() {
        #expect(sourceLines(of: "a\r\nb\nc\rd\r\n") == ["a", "b", "c", "d"])
        #expect(sourceLines(of: PatternTextTests.mark + "tempo 90\r\n\r\n4 bars") == ["tempo 90", "", "4 bars"])
        #expect(sourceLines(of: "x\n\n") == ["x", ""])
        #expect(sourceLines(of: "") == [""])
    }

    @Test("A .metro file with CRLF and a byte-order mark reads as its LF twin, positions and header included")
    func metro() throws {
        let unix = "# Slow waltz.\ntempo 90\nmeter 3/4\nintro: 2 bars\nrepeat 2\n  4 bars x3\nend\n"
        let windows = PatternTextTests.mark + unix.replacingOccurrences(of: "\n", with: "\r\n")
        let a = try MetroPattern.parse(unix, file: "u")
        let b = try MetroPattern.parse(windows, file: "w")
        #expect(b.summary == "Slow waltz.")
        #expect(try a.score().sections == b.score().sections)
        #expect(try b.score().sections.count == 7)
        do {
            _ = try MetroPattern.parse(PatternTextTests.mark + "tempo 90\r\n4 bars swing 9\r\n", file: "w")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 2 && error.column == 14 && error.sourceLine == "4 bars swing 9")
        }
    }

    @Test("A klick map with CRLF and a byte-order mark reads as its LF twin, and is detected as klick")
    func klick() throws {
        let unix = "# map\nintro: 2 4/4 120\n3 3/4 90-120 Xxx 0.5\n"
        let windows = PatternTextTests.mark + unix.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(PatternLanguage.detect(path: "w.txt", text: windows) == .klick)
        #expect(try KlickMap.parse(windows, file: "w").sections == KlickMap.parse(unix, file: "u").sections)
    }

    @Test("A bank file with CRLF and a byte-order mark gives the same zones")
    func bank() throws {
        let unix = "name n\nsample a.wav root A4 notes 0-127 tune -4\n"
        let windows = PatternTextTests.mark + unix.replacingOccurrences(of: "\n", with: "\r\n")
        let a = try BankFile.parse(unix, file: "u")
        let b = try BankFile.parse(windows, file: "w")
        #expect(a.name == b.name && a.zones == b.zones)
    }

    @Test("'x R' and 'xR' repeat a section or a play alike; a bare 'x' needs its count")
    func spacedRepeat() throws {
        let spaced = try MetroPattern.parse("a: 2 bars x 3 tempo 90\nplay a x 2\n", file: "s").score().sections
        let glued = try MetroPattern.parse("a: 2 bars x3 tempo 90\nplay a x2\n", file: "g").score().sections
        #expect(spaced == glued)
        #expect(spaced.count == 9)
        for (text, line, column, message) in [
            ("2 bars x\n", 1, 9, "expected a repeat count after 'x', as in 'x 2'"),
            ("2 bars x tempo 90\n", 1, 10, "expected a repeat count after 'x', found 'tempo'"),
            ("2 bars x 10001\n", 1, 8, "a repeat count is x1 to x10000"),
            ("a: 2 bars\nplay a x 2 x\n", 2, 12, "unexpected 'x' after 'play'"),
            ("forever x 2\n", 1, 9, "a section that plays forever cannot repeat"),
        ] {
            do {
                _ = try MetroPattern.parse(text, file: "e")
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.line == line && error.column == column && error.message == message, "\(text)")
            }
        }
    }
}
